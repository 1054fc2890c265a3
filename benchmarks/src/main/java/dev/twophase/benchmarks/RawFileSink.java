package dev.twophase.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/** The hand-written side of {@link FileParticipantBenchmark}: the same durable work by hand. */
final class RawFileSink implements FileBenchSink {
  /** The raw loop's stand-in for the decision record. */
  static final int DECISION_BYTES = 300;
  /** The raw loop's write buffer: the file participant's default. */
  static final int BUFFER_BYTES = 64 * 1024;
  /** Size of the raw loop's stand-in for the completion mark (written, not synced). */
  static final int MARK_BYTES = 40;

  private final Path outDir;
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
  private final FileChannel decisionLog; // null: no decision record
  private final ByteBuffer decision = ByteBuffer.allocateDirect(DECISION_BYTES);
  private final ByteBuffer mark; // null: no completion mark
  private long decisionLogSize;
  private final CheckpointPhases phases;
  private FileChannel part; // null until the first record after a checkpoint
  private Path partFile;
  private long index;
  /** Refuse line breaks, as {@code RecordEncoders.lines()} does. */
  private final boolean lineCheck;

  RawFileSink(Path dir, boolean withDecision, boolean withMark) throws IOException {
    this(dir, withDecision, withMark, false);
  }

  RawFileSink(Path dir, boolean withDecision, boolean withMark, boolean lineCheck) throws IOException {
    this.lineCheck = lineCheck;
    outDir = Files.createDirectory(dir.resolve("out"));
    BenchDirs.fsync(dir);
    if (withDecision) {
      Path logDir = Files.createDirectory(dir.resolve("log"));
      BenchDirs.fsync(dir);
      decisionLog = FileChannel.open(logDir.resolve("decisions.log"),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      BenchDirs.fsync(logDir);
      byte[] bytes = new byte[DECISION_BYTES];
      new SplittableRandom(7).nextBytes(bytes);
      decision.put(bytes).flip();
    } else {
      decisionLog = null;
    }
    mark = withMark ? ByteBuffer.allocateDirect(MARK_BYTES) : null;
    phases = withDecision
        ? new CheckpointPhases("preCommit [drain, fsync, close, dir fsync]", "decision [write, fdatasync]",
            withMark ? "commit [rename, dir fsync, mark]" : "commit [rename, dir fsync]")
        : new CheckpointPhases("preCommit [drain, fsync, close, dir fsync]", "commit [rename, dir fsync]");
  }

  private void openPart() throws IOException {
    partFile = outDir.resolve(".part-" + index + ".inprogress");
    part = FileChannel.open(partFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
  }

  @Override
  public void write(String record) throws IOException {
    if (part == null) {
      openPart(); // like the participant, which creates a part with its first record
    }
    if (lineCheck && (record.indexOf('\n') >= 0 || record.indexOf('\r') >= 0)) {
      throw new IllegalArgumentException("a line record must not contain a line break");
    }
    byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
    if (bytes.length + 1 > buffer.remaining()) {
      drainBuffer();
      if (bytes.length + 1 > buffer.capacity()) {
        writeFully(part, ByteBuffer.wrap(bytes));
        buffer.put((byte) '\n');
        return;
      }
    }
    buffer.put(bytes).put((byte) '\n');
  }

  @Override
  public void checkpoint() throws IOException {
    long t0 = System.nanoTime();
    // pre-commit: the data and the in-progress name are durable
    drainBuffer();
    part.force(true);
    part.close();
    part = null;
    BenchDirs.fsync(outDir);
    long t1 = System.nanoTime();
    phases.add(0, t1 - t0);
    // the decision
    if (decisionLog != null) {
      decision.rewind();
      while (decision.hasRemaining()) {
        decisionLogSize += decisionLog.write(decision, decisionLogSize);
      }
      decisionLog.force(false);
      long t = System.nanoTime();
      phases.add(1, t - t1);
      t1 = t;
    }
    // commit: the final name is durable
    Files.move(partFile, outDir.resolve("part-" + index), StandardCopyOption.ATOMIC_MOVE);
    BenchDirs.fsync(outDir);
    if (mark != null) { // like the coordinator's completion mark: written after the commit, not synced
      mark.clear();
      while (mark.hasRemaining()) {
        decisionLogSize += decisionLog.write(mark, decisionLogSize);
      }
    }
    phases.add(decisionLog != null ? 2 : 1, System.nanoTime() - t1);
    phases.checkpointDone();
    index++;
  }

  @Override
  public CheckpointPhases phases() {
    return phases;
  }

  private void drainBuffer() throws IOException {
    buffer.flip();
    writeFully(part, buffer);
    buffer.clear();
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  @Override
  public long checkpoints() {
    return index;
  }

  @Override
  public Path outputDirectory() {
    return outDir;
  }

  @Override
  public boolean isCommitted(String name) {
    return name.startsWith("part-");
  }

  @Override
  public void close() throws IOException {
    try {
      if (part != null) {
        part.close();
      }
    } finally {
      if (decisionLog != null) {
        decisionLog.close();
      }
    }
  }
}
