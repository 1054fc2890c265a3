package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded input: the records after the last periodic checkpoint are pre-committed at the end of
 * input and committed by the final checkpoint (Flink's own sinks have lost this last batch).
 */
class BoundedInputIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @Test
  void everyRecordOfABoundedInputIsCommittedOnce() throws Exception {
    runToTheEnd(Jobs.env(2, 100, 0, null), 100_000, tmp.resolve("out"));
  }

  /** The input ends before the first periodic checkpoint: the final checkpoint commits it all. */
  @Test
  void anInputThatEndsBeforeTheFirstCheckpointIsCommittedByTheFinalOne() throws Exception {
    runToTheEnd(Jobs.env(2, 60_000, 0, null), 10, tmp.resolve("out"));
  }

  /** Batch execution: no checkpoints; the committer commits everything at the end of input. */
  @Test
  void inBatchModeEverythingIsCommittedAtTheEnd() throws Exception {
    StreamExecutionEnvironment env = Jobs.env(2, 0, 0, null);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    runToTheEnd(env, 50_000, tmp.resolve("out"));
  }

  private static void runToTheEnd(StreamExecutionEnvironment env, long n, Path out) throws Exception {
    Jobs.numbers(env, n).sinkTo(TwoPhaseSink.<String>builder("bounded")
        .participant("files", Participants.files(out.toString()))
        .build()).uid("sink");
    env.execute("bounded");

    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }
}
