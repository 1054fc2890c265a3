package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.file.FileTransaction;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A participant that can no longer tell whether a decided transaction committed (its resource
 * "forgot" it, as a Kafka broker does once the transactional id moved on): asking again cannot
 * tell either, so the job must fail without restarting, even with restarts left, and fail the same
 * way from its retained checkpoint; restarted from that checkpoint with
 * {@code continueAfterUnknownCommitOutcome()}, as the troubleshooting table says, it takes the
 * transaction as done and finishes. Here the forgotten transaction did commit (the hook throws after
 * the commit returned), so the records end up exactly once: the case the documented way on is for.
 */
class UnknownCommitOutcomeIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(2);

  /** The transaction the resource forgot (one name, set by the first commit that returned). */
  private static final Set<String> FORGOTTEN = ConcurrentHashMap.newKeySet();
  /** How often a commit of the forgotten transaction threw. */
  private static final AtomicInteger THROWN = new AtomicInteger();

  @TempDir
  Path tmp;

  @Test
  void anUnknownOutcomeStopsTheJobUntilTheUserDecidesToGoOn() throws Exception {
    long n = 10_000;
    Path out = tmp.resolve("out");
    Path checkpoints = tmp.resolve("checkpoints");

    StreamExecutionEnvironment first = Jobs.env(2, 100, 5, null, Jobs.retainedCheckpoints(checkpoints));
    job(first, out, n, 2, false);
    Exception failure = assertThrows(Exception.class, () -> first.execute("unknown-outcome-1"));
    assertNotNull(Causes.find(failure, SuppressRestartsException.class), "no restart: " + failure);
    CommitOutcomeUnknownException unknown = Causes.find(failure, CommitOutcomeUnknownException.class);
    assertNotNull(unknown, "a CommitOutcomeUnknownException in " + failure);
    assertEquals("files", unknown.participant().orElseThrow());
    assertTrue(unknown.getMessage().contains("continueAfterUnknownCommitOutcome()"), unknown.getMessage());
    assertTrue(unknown.getMessage().contains(FORGOTTEN.iterator().next()), "names the transaction: " + unknown.getMessage());
    // A restart would have restored the checkpoint that holds the transaction and asked again.
    assertEquals(1, THROWN.get(), "asked once, with five restarts allowed");
    assertEquals(0, HookedFiles.notClosed(out.toString()), "the failed job closed its participants");

    String retained = Jobs.latestCheckpoint(checkpoints);
    StreamExecutionEnvironment again = Jobs.env(2, 100, 5, retained);
    job(again, out, n, 0, false);
    Exception second = assertThrows(Exception.class, () -> again.execute("unknown-outcome-2"));
    assertNotNull(Causes.find(second, SuppressRestartsException.class), "no restart: " + second);
    assertNotNull(Causes.find(second, CommitOutcomeUnknownException.class), "the same failure from the checkpoint: " + second);
    // the restored writer (its pending handle) and the committer (its restored committable) may each ask
    int afterSecond = THROWN.get();
    assertTrue(afterSecond >= 2 && afterSecond <= 3, "asked again once per restored copy, not in a loop: " + afterSecond);

    StreamExecutionEnvironment on = Jobs.env(2, 100, 0, retained);
    job(on, out, n, 0, true);
    on.execute("unknown-outcome-3");
    assertTrue(THROWN.get() > afterSecond, "the restored transaction was asked about again, and taken as done");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
    assertEquals(0, HookedFiles.notClosed(out.toString()));
  }

  private static void job(StreamExecutionEnvironment env, Path out, long n, int throttle, boolean goOn) {
    TwoPhaseSink.Builder<String> sink = TwoPhaseSink.<String>builder("unknown")
        .participant("files", HookedFiles.factory(out.toString(), UnknownCommitOutcomeIT::forget));
    if (goOn) {
      sink.continueAfterUnknownCommitOutcome();
    }
    Jobs.numbers(env, n).map(new Throttle(throttle)).uid("throttle").sinkTo(sink.build()).uid("sink");
  }

  /** After the first commit with records returned, that transaction's commits cannot tell. */
  private static void forget(String point, FileTransaction t, Path dir) {
    if (!point.equals("committed") || t.parts().isEmpty()) {
      return;
    }
    if (FORGOTTEN.isEmpty()) {
      synchronized (FORGOTTEN) {
        if (FORGOTTEN.isEmpty()) {
          FORGOTTEN.add(t.name());
        }
      }
    }
    if (FORGOTTEN.contains(t.name())) {
      THROWN.incrementAndGet();
      throw new CommitOutcomeUnknownException("planned: the resource forgot whether " + t.name() + " committed", null);
    }
  }
}
