package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failing commit is retried, never dropped: within Flink's committer (up to
 * {@code sink.committer.retries}, 10 by default) and, past that, by the next attempt of the job,
 * whose committer commits the restored committable from its handle.
 */
class CommitterRetryIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(2);

  /** Commit failures still to throw, by test. */
  private static final Map<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();
  /** The task threads that saw a planned commit failure, by test ("...#<attempt>"). */
  private static final Map<String, Set<String>> THREADS = new ConcurrentHashMap<>();

  @TempDir
  Path tmp;

  @Test
  void aCommitThatFailsAFewTimesIsRetriedByTheCommitter() throws Exception {
    runWithFailingCommits("retry-3", 3, 0);
    assertEquals(Set.of("#0"), attempts("retry-3"), "retried in the first attempt, no restart");
  }

  @Test
  void aCommitThatFailsPastFlinksRetriesIsCommittedByTheNextAttempt() throws Exception {
    runWithFailingCommits("retry-12", 12, 2);
    assertTrue(attempts("retry-12").contains("#1"), "the job restarted and committed again: " + attempts("retry-12"));
  }

  private void runWithFailingCommits(String key, int failures, int restarts) throws Exception {
    long n = 20_000;
    FAILURES.put(key, new AtomicInteger(failures));
    THREADS.put(key, ConcurrentHashMap.newKeySet());
    Path out = tmp.resolve("out");
    StreamExecutionEnvironment env = Jobs.env(1, 100, restarts, null);
    Jobs.numbers(env, n)
        .map(new Throttle(10)).uid("throttle")
        .sinkTo(TwoPhaseSink.<String>builder(key)
            .participant("files", HookedFiles.factory(out.toString(), (point, t, dir) -> failCommit(key, point, t)))
            .build()).uid("sink");
    env.execute(key);

    assertEquals(0, FAILURES.get(key).get(), "every planned commit failure happened");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }

  private static void failCommit(String key, String point, dev.twophase.file.FileTransaction t) throws IOException {
    if (point.equals("commit") && !t.parts().isEmpty()
        && FAILURES.get(key).getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      String thread = Thread.currentThread().getName();
      THREADS.get(key).add(thread.substring(thread.lastIndexOf('#')));
      throw new IOException("planned commit failure of " + t.name());
    }
  }

  private static Set<String> attempts(String key) {
    return THREADS.get(key);
  }
}
