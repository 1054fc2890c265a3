package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.file.FileTransaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-down after a crash: a job at parallelism 3 fails, leaving every subtask's open
 * transactions behind (their aborts fail, as a crash would skip them), and its last checkpoint is
 * restored at parallelism 1. The one subtask receives the three states and aborts the leftovers of
 * all three lineages, and nothing of another lineage it does not own: in the end every record is
 * committed once and nothing is in progress.
 */
class ScaleDownAfterFailureIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  /** The in-progress files the first job's failed aborts left, by name. */
  private static final Set<String> LEFT = ConcurrentHashMap.newKeySet();

  @TempDir
  Path tmp;

  @Test
  void oneSubtaskCleansUpTheLeftoversOfEveryStateItReceives() throws Exception {
    long n = 40_000;
    String key = "scale-down";
    // The first job fails in one subtask, and Flink cancels the others; whether a cancelled
    // subtask still reaches its abort before the job is declared failed depends on the timing of
    // the cancellation. The set-up is repeated, each time from scratch, until leftovers of at
    // least two lineages exist, which is what this test needs.
    Path out = null;
    Path checkpoints = null;
    for (int attempt = 1; attempt <= 5; attempt++) {
      LEFT.clear();
      out = tmp.resolve("out-" + attempt);
      checkpoints = tmp.resolve("checkpoints-" + attempt);
      FailingMap.plan(key, 1);
      StreamExecutionEnvironment first = Jobs.env(3, 100, 0, null, Jobs.retainedCheckpoints(checkpoints));
      Jobs.numbers(first, n)
          .map(new FailingMap(key)).uid("failing")
          .sinkTo(TwoPhaseSink.<String>builder("down")
              .participant("files", HookedFiles.factory(out.toString(), ScaleDownAfterFailureIT::crashOnAbort))
              .build()).uid("sink");
      assertThrows(Exception.class, () -> first.execute("scale-down-1"));
      if (LEFT.stream().map(ScaleDownAfterFailureIT::lineage).distinct().count() > 1) {
        break;
      }
    }
    assertTrue(LEFT.stream().map(ScaleDownAfterFailureIT::lineage).distinct().count() > 1,
        "leftovers of several lineages after 5 attempts: " + LEFT);

    StreamExecutionEnvironment second = Jobs.env(1, 100, 0, Jobs.latestCheckpoint(checkpoints));
    Jobs.numbers(second, n)
        .map(new FailingMap(key)).uid("failing")
        .sinkTo(TwoPhaseSink.<String>builder("down")
            .participant("files", Participants.files(out.toString()))
            .build()).uid("sink");
    second.execute("scale-down-2");

    assertEquals(List.of(), CommittedFiles.inProgress(out));
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
  }

  /** The first job's aborts fail and leave the transaction's files, as a crash would. */
  private static void crashOnAbort(String point, FileTransaction t, Path dir) throws IOException {
    if (!point.equals("abort")) {
      return;
    }
    try (Stream<Path> files = Files.list(dir)) {
      files.map(p -> p.getFileName().toString())
          .filter(f -> f.startsWith(".part-" + t.name() + "-") && f.endsWith(".inprogress"))
          .forEach(LEFT::add);
    }
    throw new IOException("planned: the process is gone before it aborts " + t.name());
  }

  /** The lineage part of a file name {@code .part-down-files-<lineage>-<epoch>-<seq>-<index>.inprogress}. */
  private static String lineage(String file) {
    return file.substring(".part-down-files-".length()).split("-")[0];
  }

}
