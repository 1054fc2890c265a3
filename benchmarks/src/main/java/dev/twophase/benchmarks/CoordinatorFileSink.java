package dev.twophase.benchmarks;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The library side of {@link FileParticipantBenchmark}: a coordinator over a file state log with
 * one file participant.
 */
final class CoordinatorFileSink implements FileBenchSink {
  private static final Duration COMMIT_TIMEOUT = Duration.ofMinutes(1);

  private final FileStateLog log;
  private final TimedStateLog timedLog;
  private final FileParticipant<CharSequence> files;
  private final Coordinator coordinator;
  private final Output<CharSequence> output;
  private final CheckpointPhases phases;
  private final boolean pipelined;
  /** Pipelined: the checkpoint whose commit may still run. */
  private Checkpoint outstanding;
  private long checkpoints;

  CoordinatorFileSink(Path dir, boolean pipelined) {
    this.pipelined = pipelined;
    phases = pipelined
        ? new CheckpointPhases("checkpoint() [preCommit, begin, encode, log append]", "of which log append",
            "awaiting the previous commit")
        : new CheckpointPhases("checkpoint() [preCommit, begin, encode, log append]", "of which log append",
            "awaitCommitted [hand-off, rename, dir fsync, completion mark]");
    log = FileStateLog.open(dir.resolve("log"));
    timedLog = new TimedStateLog(log);
    files = FileParticipant.builder(dir.resolve("out"), RecordEncoders.lines()).build();
    coordinator = Coordinator.builder("file-bench", timedLog).participant("files", files).build();
    output = coordinator.output(files);
  }

  @Override
  public void write(String record) {
    output.write(record);
  }

  @Override
  public void checkpoint() {
    long appendBefore = timedLog.appendNanos;
    long t0 = System.nanoTime();
    Checkpoint c = coordinator.checkpoint();
    long t1 = System.nanoTime();
    if (pipelined) {
      drain();
      outstanding = c;
    } else {
      c.awaitCommitted(COMMIT_TIMEOUT);
    }
    long t2 = System.nanoTime();
    phases.add(0, t1 - t0);
    phases.add(1, timedLog.appendNanos - appendBefore);
    phases.add(2, t2 - t1);
    phases.checkpointDone();
    checkpoints++;
  }

  @Override
  public void drain() {
    if (outstanding != null) {
      outstanding.awaitCommitted(COMMIT_TIMEOUT);
      outstanding = null;
    }
  }

  @Override
  public CheckpointPhases phases() {
    return phases;
  }

  @Override
  public long checkpoints() {
    return checkpoints;
  }

  @Override
  public Path outputDirectory() {
    return files.baseDirectory();
  }

  @Override
  public boolean isCommitted(String name) {
    return name.startsWith("part-"); // in progress: ".part-...inprogress"
  }

  @Override
  public void close() {
    try {
      coordinator.close();
    } finally {
      log.close();
    }
    BenchReport.line("[coordinator] decision record payload: %d bytes (last checkpoint)",
        timedLog.lastPayloadBytes);
  }
}
