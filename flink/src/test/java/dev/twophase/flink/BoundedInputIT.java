package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
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
    long n = 100_000;
    Path out = tmp.resolve("out");
    StreamExecutionEnvironment env = Jobs.env(2, 100, 0, null);
    Jobs.numbers(env, n).sinkTo(TwoPhaseSink.<String>builder("bounded")
        .participant("files", Participants.files(out.toString()))
        .build()).uid("sink");
    env.execute("bounded");

    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }
}
