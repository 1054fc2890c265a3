package dev.twophase.benchmarks;

import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.file.FileParticipant;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Exactly-once files end to end: throughput, in records per second, of 100-byte lines written
 * through a {@link Coordinator} over a {@link FileStateLog} with one {@link FileParticipant}
 * (lines encoder, one bucket), with a checkpoint every {@code checkpointEvery} records, against a
 * raw loop doing the same durable work by hand. One benchmark invocation writes one record, and
 * every {@code checkpointEvery}-th invocation also checkpoints, so ops/s = records/s.
 *
 * <p>{@code variant}:
 *
 * <ul>
 *   <li>{@code coordinator}: {@code Output.write} for each record; at each checkpoint
 *       {@code checkpoint().awaitCommitted(...)}: the participant's pre-commit (drain the 64 KiB
 *       buffer, {@code force(true)}, close, directory fsync), the next transaction begun, the
 *       decision appended to the state log and {@code fdatasync}ed, then on the committer thread the
 *       commit (rename to the final name, directory fsync) and the completion mark (written, not
 *       synced). Waiting for the commit keeps the work per checkpoint the same as the raw loop's.
 *   <li>{@code coordinatorPipelined} (not run by default): the coordinator as it is meant to run:
 *       {@code checkpoint()} returns once the decision is durable, and the commit runs on the
 *       committer thread while the application writes the next batch. Its {@code checkpoint} waits
 *       only for the previous checkpoint's commit, so at most one commit is outstanding, and a
 *       sink's turn in {@code interleaved} ends by waiting for its last commit: every commit is
 *       inside the sink's timed turns, none runs during another sink's turn.
 *   <li>{@code raw}: the same records' UTF-8 bytes ({@code String.getBytes}) and {@code '\n'} into
 *       a 64 KiB heap buffer drained to a hidden in-progress file with {@code FileChannel.write}
 *       (the file created with the batch's first record, as the participant does); at each
 *       checkpoint: drain, {@code force(true)}, close, directory fsync, atomic rename to the final
 *       name, directory fsync. No decision record: less durable work than the coordinator does.
 *   <li>{@code rawWithDecision}: {@code raw} plus, between the data's fsync and the rename, a
 *       300-byte record appended to a log file in its own directory and {@code force(false)}ed
 *       ({@code fdatasync}, as the state log does): the same durable work as the coordinator.
 *   <li>{@code rawWithDecisionChecked} (not run by default): {@code rawWithDecision} that also
 *       refuses records with a line break, as {@code RecordEncoders.lines()} does (two
 *       {@code String.indexOf} per record): what the record contract costs by hand.
 *   <li>{@code rawWithDecisionAndMark} (not run by default; {@code -p variant=...} or
 *       {@code -Dbench.interleave=...}): {@code rawWithDecision} plus a 40-byte record written,
 *       not synced, to the log after the commit, as the coordinator's completion mark is.
 *   <li>{@code interleaved}: the three above in one fork, each with its own directories, taking
 *       turns of {@code -Dbench.turn} batches (default 1; a batch: {@code checkpointEvery} records
 *       and their checkpoint). The
 *       disk's sync latency drifts by 2x and more within minutes on a shared machine, so the
 *       separate variants, measured one after the other, compare different moments; here each
 *       batch is timed and after each iteration the three rates and their ratios are printed
 *       ({@code [interleaved] ...}), all from the same seconds, with the nanoseconds per record and
 *       the part of them spent writing (outside checkpoints and the wait for a pipelined commit),
 *       and the CPU time of the whole process per record during each sink's turns, with the ratio
 *       of the CPU times ({@code CPU a/b}, above 1 when {@code a} needs less CPU per record): on a
 *       machine shared with other work, elapsed time also measures the waits for a CPU. Its JMH score is the three sinks'
 *       records together and means little by itself.
 * </ul>
 *
 * <p>After each iteration the average time per checkpoint of each phase is printed
 * ({@code [phases] ...}): for the coordinator, {@code checkpoint()} (pre-commit, begin, encoding,
 * log append), the log append alone (timed by {@link TimedStateLog}, a pass-through around the
 * {@code FileStateLog}) and {@code awaitCommitted}; for the raw loops, each step. The timing costs a
 * few {@code nanoTime} calls per checkpoint.
 *
 * <p>Files go to a fresh directory per trial under {@code -Dbench.dir} or {@code benchmarks/target/}
 * (see {@link BenchDirs}). After each iteration the committed files are counted (each checkpoint
 * must have committed one file of {@code checkpointEvery} records), deleted, and their directory
 * synced, outside the measurement ({@code [files] ...}), so disk use stays bounded by one
 * iteration's output; the trial's directory is deleted at the end.
 *
 * <p>The sides are {@link CoordinatorFileSink} and {@link RawFileSink}, both {@link FileBenchSink}s
 * timing their checkpoints' phases in {@link CheckpointPhases}; {@link InterleavedTurns} has them
 * take turns.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Thread)
public class FileParticipantBenchmark {

  /** Bytes of one encoded record, its {@code '\n'} included. */
  static final int RECORD_BYTES = 100;
  /** Distinct records, cycled (a power of two). */
  static final int RECORDS = 1024;

  @Param({"10000", "1000"})
  public int checkpointEvery;

  @Param({"coordinator", "raw", "rawWithDecision", "interleaved"})
  public String variant;

  /**
   * The sinks of {@code interleaved}, the coordinator first; {@code -Dbench.interleave=...} (a
   * comma-separated list of variants) changes them, e.g. to add {@code rawWithDecisionAndMark}.
   */
  private static final String[] INTERLEAVED =
      System.getProperty("bench.interleave", "coordinator,raw,rawWithDecision").split(",");
  /** Batches per turn in {@code interleaved}: {@code -Dbench.turn}. */
  private static final int TURN = Integer.getInteger("bench.turn", 1);

  private Path dir;
  /** The sink of the current batch. */
  private FileBenchSink sink;
  /** Every sink: one, or three taking turns ({@code interleaved}). */
  private FileBenchSink[] sinks;
  private String[] names;
  private boolean interleaved;
  private String[] records;
  private int next;
  private int sinceCheckpoint;
  private long[] checkpointsAtIterationStart;

  /** The sinks' turns ({@code interleaved} only, else null). */
  private InterleavedTurns turns;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    records = records();
    dir = BenchDirs.fresh("fileparticipant-bench-");
    interleaved = variant.equals("interleaved");
    names = interleaved ? INTERLEAVED : new String[] {variant};
    sinks = new FileBenchSink[names.length];
    for (int i = 0; i < names.length; i++) {
      Path d = interleaved ? Files.createDirectory(dir.resolve(names[i])) : dir;
      sinks[i] = newSink(names[i], d);
    }
    sink = sinks[0];
    checkpointsAtIterationStart = new long[sinks.length];
    if (interleaved) {
      turns = new InterleavedTurns(sinks, names, TURN);
    }
  }

  private static FileBenchSink newSink(String variant, Path dir) throws IOException {
    return switch (variant) {
      case "coordinator" -> new CoordinatorFileSink(dir, false);
      case "coordinatorPipelined" -> new CoordinatorFileSink(dir, true);
      case "raw" -> new RawFileSink(dir, false, false);
      case "rawWithDecision" -> new RawFileSink(dir, true, false);
      case "rawWithDecisionAndMark" -> new RawFileSink(dir, true, true);
      case "rawWithDecisionChecked" -> new RawFileSink(dir, true, false, true);
      default -> throw new IllegalArgumentException("unknown variant " + variant);
    };
  }

  @Setup(Level.Iteration)
  public void iterationStart() {
    for (int i = 0; i < sinks.length; i++) {
      checkpointsAtIterationStart[i] = sinks[i].checkpoints();
      sinks[i].phases().reset();
    }
    if (interleaved) {
      turns.iterationStart(sinceCheckpoint != 0);
    }
  }

  /**
   * Deletes the committed files (the in-progress one of the current batch stays) and syncs their
   * directory, so that neither the deletes nor the disk space reach the next iteration. Checks that
   * every checkpoint committed exactly {@code checkpointEvery} records. Interleaved: prints the
   * three rates of this iteration and their ratios.
   */
  @TearDown(Level.Iteration)
  public void deleteCommitted() throws IOException {
    StringBuilder line = new StringBuilder();
    for (FileBenchSink s : sinks) {
      s.drain(); // outside the timing: at most one commit per iteration (interleaved: none left)
    }
    for (int i = 0; i < sinks.length; i++) {
      long checkpoints = sinks[i].checkpoints() - checkpointsAtIterationStart[i];
      long bytes = deleteCommitted(sinks[i], names[i], checkpoints);
      line.append(String.format(" %s %d checkpoints (%.1f MB deleted);", names[i], checkpoints, bytes / 1e6));
    }
    BenchReport.line("[files]%s", line);
    for (int i = 0; i < sinks.length; i++) {
      BenchReport.line("[phases] %s: %s", names[i], sinks[i].phases().report());
    }
    if (interleaved) {
      BenchReport.line("[interleaved]%s", turns.report(checkpointEvery));
    }
  }

  private long deleteCommitted(FileBenchSink s, String name, long checkpoints) throws IOException {
    long files = 0;
    long bytes = 0;
    Path out = s.outputDirectory();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(out)) {
      for (Path p : entries) {
        if (s.isCommitted(p.getFileName().toString())) {
          bytes += Files.size(p);
          files++;
          Files.delete(p);
        }
      }
    }
    BenchDirs.fsync(out);
    if (files != checkpoints || bytes != checkpoints * checkpointEvery * (long) RECORD_BYTES) {
      throw new IllegalStateException(name + ": " + checkpoints + " checkpoints committed "
          + files + " files of " + bytes + " bytes, expected " + checkpoints + " files of "
          + checkpointEvery * (long) RECORD_BYTES + " bytes each");
    }
    return bytes;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      for (FileBenchSink s : sinks) {
        s.close();
      }
    } finally {
      BenchDirs.deleteRecursively(dir);
    }
  }

  /** One record; every {@code checkpointEvery}-th call also checkpoints and waits for the commit. */
  @Benchmark
  public void writeRecord() throws IOException {
    sink.write(records[next++ & (RECORDS - 1)]);
    if (++sinceCheckpoint == checkpointEvery) {
      sinceCheckpoint = 0;
      if (interleaved) {
        turns.checkpoint();
        sink = turns.sink();
      } else {
        sink.checkpoint();
      }
    }
  }

  /** Distinct ASCII lines of RECORD_BYTES - 1 characters (the encoder adds the '\n'). */
  static String[] records() {
    SplittableRandom random = new SplittableRandom(42);
    String[] result = new String[RECORDS];
    for (int i = 0; i < RECORDS; i++) {
      StringBuilder b = new StringBuilder(RECORD_BYTES);
      b.append(String.format("record %06d ", i));
      while (b.length() < RECORD_BYTES - 1) {
        b.append((char) ('a' + random.nextInt(26)));
      }
      result[i] = b.toString();
      if (result[i].getBytes(StandardCharsets.UTF_8).length != RECORD_BYTES - 1) {
        throw new AssertionError("record of " + result[i].length() + " bytes");
      }
    }
    return result;
  }
}
