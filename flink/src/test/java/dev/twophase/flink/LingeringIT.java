package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's lingering-transaction problem: the first attempt of a job fails before any checkpoint
 * completed, with transactions pre-committed (their committable never became a decision), so no
 * state names them. The next attempt starts without state and still finds and aborts them: its
 * fresh lineage is the one the failed attempt used, with another epoch.
 */
class LingeringIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  /** In-progress files of the failing subtask's sink when it failed. */
  private static final Set<String> LEFT_BY_FIRST_ATTEMPT = ConcurrentHashMap.newKeySet();
  /** Whether a checkpoint already failed with files in progress. */
  private static volatile boolean failedWithFiles;

  @TempDir
  Path tmp;

  @Test
  void leftoversOfAnAttemptThatNeverCheckpointedAreAbortedByTheNext() throws Exception {
    long n = 20_000;
    LEFT_BY_FIRST_ATTEMPT.clear();
    failedWithFiles = false;
    Path out = tmp.resolve("out");
    StreamExecutionEnvironment env = Jobs.env(2, 100, 6, null);
    Jobs.numbers(env, n)
        .map(new FailFirstCheckpoint(out.toString())).uid("fail-first-checkpoint")
        .sinkTo(TwoPhaseSink.<String>builder("lingering")
            .participant("files", Participants.files(out.toString()))
            .build()).uid("sink");
    env.execute("lingering");

    assertFalse(LEFT_BY_FIRST_ATTEMPT.isEmpty(), "the first attempt had pre-committed files when it failed");
    for (String name : LEFT_BY_FIRST_ATTEMPT) {
      assertFalse(Files.exists(out.resolve(name)), name + " lingers");
      assertFalse(Files.exists(out.resolve(name.substring(1, name.length() - ".inprogress".length()))),
          name + " of an undecided checkpoint became visible");
    }
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }

  /**
   * Fails every checkpoint in its snapshot, which Flink takes after every operator's pre-barrier
   * work (the sink has pre-committed by then, and the checkpoint never completes), until a subtask
   * failed one with in-progress files of its own sink subtask present; notes those files. No
   * checkpoint completes before, so that subtask's next attempt starts without state.
   */
  static final class FailFirstCheckpoint extends RichMapFunction<String, String> implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private final String dir;

    FailFirstCheckpoint(String dir) {
      this.dir = dir;
    }

    @Override
    public String map(String value) throws InterruptedException {
      if (!failedWithFiles) {
        Thread.sleep(1); // the job must not finish before the planned failure
      }
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws IOException {
      if (failedWithFiles) {
        return;
      }
      if (Files.isDirectory(Path.of(dir))) {
        try (Stream<Path> files = Files.list(Path.of(dir))) {
          // This subtask's own files (its lineage): other subtasks go on (region failover), and
          // their pre-committed files are committed by their next completed checkpoint.
          String lineage = "-c0s" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + "-";
          List<String> inProgress = files.map(p -> p.getFileName().toString())
              .filter(f -> f.endsWith(".inprogress") && f.contains(lineage)).toList();
          if (!inProgress.isEmpty()) {
            LEFT_BY_FIRST_ATTEMPT.addAll(inProgress);
            failedWithFiles = true;
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      throw new IOException("planned failure of checkpoint " + context.getCheckpointId());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }
}
