package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.TransactionLostException;
import dev.twophase.file.FileTransaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction of a completed checkpoint that can no longer be committed (here: something deleted
 * its in-progress files, as a clean-up job or an expiring resource would) fails the job with a
 * {@link TransactionLostException} naming the checkpoint and the handle; Flink's
 * {@code signalFailedWithKnownReason} would have logged it and dropped it. With the opt-in
 * {@code ignoreFailuresAfterTransactionTimeout}, a transaction older than its timeout is dropped
 * instead, and exactly its records are missing.
 */
class LostTransactionIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(2);

  /** Non-empty commits to let through before losing one, by test. */
  private static final Map<String, AtomicInteger> BEFORE_LOSS = new ConcurrentHashMap<>();
  /** The records of the lost transaction, by test. */
  private static final Map<String, AtomicInteger> LOST_RECORDS = new ConcurrentHashMap<>();

  @TempDir
  Path tmp;

  @Test
  void aLostTransactionFailsTheJobWithItsCheckpointAndHandle() {
    String key = "lost";
    Path out = tmp.resolve("out");
    Exception failure = assertThrows(Exception.class, () -> run(key, out, false));
    TransactionLostException lost = Causes.find(failure, TransactionLostException.class);
    assertNotNull(lost, "a TransactionLostException in " + failure);
    assertTrue(lost.checkpointId().isPresent(), "with its checkpoint");
    assertEquals("files", lost.participant().orElseThrow());
    assertTrue(lost.getMessage().contains("lost-files-c0s0-"), "names the handle: " + lost.getMessage());
    assertTrue(LOST_RECORDS.get(key).get() > 0);
    assertEquals(0, HookedFiles.notClosed(out.toString()), "the failed job closed every participant");
  }

  @Test
  void withTheOptInALostTransactionOlderThanItsTimeoutIsDroppedAndOnlyItsRecordsAreMissing() throws Exception {
    String key = "lost-ignored";
    Path out = tmp.resolve("out");
    long n = run(key, out, true);

    Map<String, Integer> counts = CommittedFiles.lineCounts(out);
    int lost = LOST_RECORDS.get(key).get();
    assertTrue(lost > 0);
    assertEquals(n - lost, counts.size(), "every record but the lost transaction's");
    assertEquals(List.of(), counts.entrySet().stream().filter(e -> e.getValue() != 1).toList(), "none twice");
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }

  private long run(String key, Path out, boolean ignore) throws Exception {
    long n = 20_000;
    BEFORE_LOSS.put(key, new AtomicInteger(2));
    LOST_RECORDS.put(key, new AtomicInteger());
    StreamExecutionEnvironment env = Jobs.env(1, 100, 0, null);
    TwoPhaseSink.Builder<String> sink = TwoPhaseSink.<String>builder(key)
        .participant("files", HookedFiles.factory(out.toString(), (point, t, dir) -> loseOne(key, point, t, dir)));
    if (ignore) {
      sink.transactionTimeout(Duration.ofMillis(1)).ignoreFailuresAfterTransactionTimeout();
    }
    Jobs.numbers(env, n).map(new Throttle(10)).uid("throttle").sinkTo(sink.build()).uid("sink");
    env.execute(key);
    return n;
  }

  /** At the third non-empty commit, deletes the transaction's in-progress files, counting their records. */
  private static void loseOne(String key, String point, FileTransaction t, Path dir) throws IOException {
    if (!point.equals("commit") || t.parts().isEmpty()) {
      return;
    }
    if (BEFORE_LOSS.get(key).getAndDecrement() == 0) {
      for (FileTransaction.Part part : t.parts()) {
        Path file = dir.resolve(part.bucket()).resolve(".part-" + t.name() + "-" + part.index() + ".inprogress");
        LOST_RECORDS.get(key).addAndGet(Files.readAllLines(file, StandardCharsets.UTF_8).size());
        Files.delete(file);
      }
    }
  }
}
