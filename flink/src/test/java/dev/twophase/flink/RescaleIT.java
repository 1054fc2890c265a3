package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stop with a savepoint, restore at a higher and then at a lower parallelism: after every stop the
 * committed files hold no record twice and nothing is left in progress, and at the end they hold
 * every record exactly once. Scale-up gives a subtask no state (it starts a lineage of its own);
 * scale-down gives one subtask the states of several, whose transactions it recovers.
 */
class RescaleIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @Test
  void stopWithSavepointThenRestoreAtHigherAndLowerParallelism() throws Exception {
    long n = 40_000;
    Path out = tmp.resolve("out");
    String savepoints = tmp.resolve("savepoints").toUri().toString();

    String first = runUntilThenStop(2, null, out, n, 3_000, savepoints);
    int afterFirst = checkedCount(out);

    String second = runUntilThenStop(3, first, out, n, afterFirst + 3_000, savepoints);
    int afterSecond = checkedCount(out);
    assertTrue(afterSecond > afterFirst, "the job at parallelism 3 committed more records");

    StreamExecutionEnvironment env = Jobs.env(1, 100, 0, second);
    job(env, out, n, 0);
    env.execute("rescale-3");

    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }

  private static void job(StreamExecutionEnvironment env, Path out, long n, int throttle) {
    Jobs.numbers(env, n)
        .map(new Throttle(throttle)).uid("throttle")
        .sinkTo(TwoPhaseSink.<String>builder("rescale")
            .participant("files", Participants.files(out.toString()))
            .build()).uid("sink");
  }

  /** Runs the job until {@code atLeast} records are committed, stops it with a savepoint, returns it. */
  private static String runUntilThenStop(int parallelism, String savepoint, Path out, long n, int atLeast,
      String savepoints) throws Exception {
    StreamExecutionEnvironment env = Jobs.env(parallelism, 100, 0, savepoint);
    job(env, out, n, 5);
    JobClient client = env.executeAsync("rescale-p" + parallelism);
    while (CommittedFiles.lineCounts(out).size() < atLeast) {
      if (client.getJobExecutionResult().isDone()) {
        client.getJobExecutionResult().get(); // throws the failure, if any
        throw new AssertionError("the job ended before " + atLeast + " records were committed");
      }
      Thread.sleep(50);
    }
    String stopped = client.stopWithSavepoint(false, savepoints, SavepointFormatType.CANONICAL).get();
    client.getJobExecutionResult().get();
    return stopped;
  }

  /** After a stop: no record twice, nothing in progress; returns the records committed. */
  private static int checkedCount(Path out) {
    Map<String, Integer> counts = CommittedFiles.lineCounts(out);
    assertEquals(List.of(), counts.entrySet().stream().filter(e -> e.getValue() != 1).map(Map.Entry::getKey).toList(),
        "no record twice after a stop with savepoint");
    assertEquals(List.of(), CommittedFiles.inProgress(out), "nothing left in progress after a stop with savepoint");
    return counts.size();
  }
}
