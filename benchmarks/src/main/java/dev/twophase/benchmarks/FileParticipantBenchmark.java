package dev.twophase.benchmarks;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
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
 * log append), the log append alone (timed by {@link TimedLog}, a pass-through around the
 * {@code FileStateLog}) and {@code awaitCommitted}; for the raw loops, each step. The timing costs a
 * few {@code nanoTime} calls per checkpoint.
 *
 * <p>Files go to a fresh directory per trial under {@code -Dbench.dir} or {@code benchmarks/target/}
 * (see {@link BenchDirs}). After each iteration the committed files are counted (each checkpoint
 * must have committed one file of {@code checkpointEvery} records), deleted, and their directory
 * synced, outside the measurement ({@code [files] ...}), so disk use stays bounded by one
 * iteration's output; the trial's directory is deleted at the end.
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
  /** The raw loop's stand-in for the decision record. */
  static final int DECISION_BYTES = 300;
  /** The raw loop's write buffer: the file participant's default. */
  static final int BUFFER_BYTES = 64 * 1024;

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
  /** Size of the raw loop's stand-in for the completion mark (written, not synced). */
  static final int MARK_BYTES = 40;

  private Path dir;
  /** The sink of the current batch. */
  private Sink sink;
  /** Every sink: one, or three taking turns ({@code interleaved}). */
  private Sink[] sinks;
  private String[] names;
  private boolean interleaved;
  private String[] records;
  private int next;
  private int sinceCheckpoint;
  private long[] checkpointsAtIterationStart;

  // interleaved only: per sink, the batches timed in this iteration and their time
  private int current;
  private int batchesInTurn;
  private long batchStart;
  private boolean skipBatch;
  private final long[] batchNanos = new long[INTERLEAVED.length];
  private final long[] batchCount = new long[INTERLEAVED.length];
  /** Per sink, the part of its timed batches spent in checkpoints (and in draining a pipelined commit). */
  private final long[] checkpointNanos = new long[INTERLEAVED.length];
  private long turnCheckpointNanos;
  /**
   * Per sink, the CPU time of the whole process (every thread: the application's, the committer,
   * the background directory sync, the state log's, GC) during its timed turns. On a machine whose
   * CPUs are shared with other work, elapsed time measures the waits for a CPU as much as the work;
   * this measures the work.
   */
  private final long[] cpuNanos = new long[INTERLEAVED.length];
  private long turnCpuStart;
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  /** What both sides implement: the benchmark loop is the same for all variants. */
  interface Sink {
    void write(String record) throws IOException;

    /** Makes everything written so far durable and visible under its final name. */
    void checkpoint() throws IOException;

    long checkpoints();

    /** The directory the final files appear in. */
    Path outputDirectory();

    /** Whether {@code name} is a committed (final) file; in-progress ones must not be deleted. */
    boolean isCommitted(String name);

    /** Where the checkpoints' time went, for the per-iteration report. */
    Phases phases();

    /** Finishes work still running in the background (a pipelined commit); the default has none. */
    default void drain() throws IOException {}

    void close() throws IOException;
  }

  /** Time per checkpoint phase, summed over one iteration. */
  static final class Phases {
    private final String[] labels;
    private final long[] nanos;
    private long checkpoints;

    Phases(String... labels) {
      this.labels = labels;
      this.nanos = new long[labels.length];
    }

    void add(int phase, long n) {
      nanos[phase] += n;
    }

    void checkpointDone() {
      checkpoints++;
    }

    void reset() {
      Arrays.fill(nanos, 0);
      checkpoints = 0;
    }

    /** Average microseconds per checkpoint of each phase. */
    String report() {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < labels.length; i++) {
        b.append(i == 0 ? "" : ", ").append(labels[i]).append(' ')
            .append(checkpoints == 0 ? "-" : String.format("%.0f", nanos[i] / 1e3 / checkpoints));
      }
      return b.append(" us/checkpoint").toString();
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    records = records();
    dir = BenchDirs.fresh("fileparticipant-bench-");
    interleaved = variant.equals("interleaved");
    names = interleaved ? INTERLEAVED : new String[] {variant};
    sinks = new Sink[names.length];
    for (int i = 0; i < names.length; i++) {
      Path d = interleaved ? Files.createDirectory(dir.resolve(names[i])) : dir;
      sinks[i] = newSink(names[i], d);
    }
    sink = sinks[0];
    checkpointsAtIterationStart = new long[sinks.length];
  }

  private static Sink newSink(String variant, Path dir) throws IOException {
    switch (variant) {
      case "coordinator":
        return new CoordinatorSink(dir, false);
      case "coordinatorPipelined":
        return new CoordinatorSink(dir, true);
      case "raw":
        return new RawSink(dir, false, false);
      case "rawWithDecision":
        return new RawSink(dir, true, false);
      case "rawWithDecisionAndMark":
        return new RawSink(dir, true, true);
      case "rawWithDecisionChecked":
        return new RawSink(dir, true, false, true);
      default:
        throw new IllegalArgumentException("unknown variant " + variant);
    }
  }

  @Setup(Level.Iteration)
  public void iterationStart() {
    for (int i = 0; i < sinks.length; i++) {
      checkpointsAtIterationStart[i] = sinks[i].checkpoints();
      sinks[i].phases().reset();
    }
    Arrays.fill(batchNanos, 0);
    Arrays.fill(batchCount, 0);
    Arrays.fill(checkpointNanos, 0);
    Arrays.fill(cpuNanos, 0);
    turnCheckpointNanos = 0;
    turnCpuStart = OS.getProcessCpuTime();
    // The batch (turn) in progress began in the previous iteration: do not time it.
    skipBatch = sinceCheckpoint != 0 || batchesInTurn != 0;
    batchStart = System.nanoTime();
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
    for (Sink s : sinks) {
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
      double[] rate = new double[sinks.length];
      StringBuilder rates = new StringBuilder();
      for (int i = 0; i < sinks.length; i++) {
        long records = batchCount[i] * checkpointEvery;
        rate[i] = batchNanos[i] == 0 ? 0 : records * 1e9 / batchNanos[i];
        rates.append(String.format(" %s %.0f rec/s (%d batches; %.1f ns/record, of which writing %.1f; CPU %.1f ns/record);",
            names[i], rate[i], batchCount[i], records == 0 ? 0 : (double) batchNanos[i] / records,
            records == 0 ? 0 : (double) (batchNanos[i] - checkpointNanos[i]) / records,
            records == 0 ? 0 : (double) cpuNanos[i] / records));
      }
      for (int i = 1; i < sinks.length; i++) {
        rates.append(String.format(" CPU %s/%s %.3f", names[0], names[i],
            cpuNanos[0] == 0 || batchCount[i] == 0 ? 0
                : ((double) cpuNanos[i] / batchCount[i]) / ((double) cpuNanos[0] / batchCount[0])));
      }
      for (int i = 1; i < sinks.length; i++) {
        rates.append(String.format(" %s/%s %.3f", names[0], names[i], rate[0] / rate[i]));
      }
      BenchReport.line("[interleaved]%s", rates);
    }
  }

  private long deleteCommitted(Sink s, String name, long checkpoints) throws IOException {
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
    fsyncDirectory(out);
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
      for (Sink s : sinks) {
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
        long t0 = System.nanoTime();
        sink.checkpoint();
        turnCheckpointNanos += System.nanoTime() - t0;
        nextSink();
      } else {
        sink.checkpoint();
      }
    }
  }

  /**
   * Interleaved: after {@code TURN} batches, finishes the sink's background work, books the turn's
   * batches and time to it and hands over to the next sink.
   */
  private void nextSink() throws IOException {
    if (++batchesInTurn < TURN) {
      return;
    }
    batchesInTurn = 0;
    long t0 = System.nanoTime();
    sink.drain();
    long now = System.nanoTime();
    turnCheckpointNanos += now - t0;
    long cpu = OS.getProcessCpuTime();
    if (!skipBatch) {
      batchNanos[current] += now - batchStart;
      batchCount[current] += TURN;
      checkpointNanos[current] += turnCheckpointNanos;
      cpuNanos[current] += cpu - turnCpuStart;
    }
    turnCheckpointNanos = 0;
    turnCpuStart = cpu;
    skipBatch = false;
    batchStart = now;
    current = (current + 1) % sinks.length;
    sink = sinks[current];
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

  static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** The library: a coordinator over a file state log with one file participant. */
  static final class CoordinatorSink implements Sink {
    private static final Duration COMMIT_TIMEOUT = Duration.ofMinutes(1);

    private final FileStateLog log;
    private final TimedLog timedLog;
    private final FileParticipant<CharSequence> files;
    private final Coordinator coordinator;
    private final Output<CharSequence> output;
    private final Phases phases;
    private final boolean pipelined;
    /** Pipelined: the checkpoint whose commit may still run. */
    private Checkpoint outstanding;
    private long checkpoints;

    CoordinatorSink(Path dir, boolean pipelined) {
      this.pipelined = pipelined;
      phases = pipelined
          ? new Phases("checkpoint() [preCommit, begin, encode, log append]", "of which log append",
              "awaiting the previous commit")
          : new Phases("checkpoint() [preCommit, begin, encode, log append]", "of which log append",
              "awaitCommitted [hand-off, rename, dir fsync, completion mark]");
      log = FileStateLog.open(dir.resolve("log"));
      timedLog = new TimedLog(log);
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
    public Phases phases() {
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

  /**
   * A pass-through {@link StateLog} that times {@code appendState} (the decision's write and
   * {@code fdatasync}) for the phase report: two {@code nanoTime} calls per checkpoint.
   */
  static final class TimedLog implements StateLog {
    private final StateLog delegate;
    volatile long appendNanos; // written by the application thread only
    volatile int lastPayloadBytes;

    TimedLog(StateLog delegate) {
      this.delegate = delegate;
    }

    @Override
    public CoordinatorLog open(String coordinatorId) {
      CoordinatorLog view = delegate.open(coordinatorId);
      return new CoordinatorLog() {
        @Override
        public String coordinatorId() {
          return view.coordinatorId();
        }

        @Override
        public long ownerEpoch() {
          return view.ownerEpoch();
        }

        @Override
        public String logId() {
          return view.logId();
        }

        @Override
        public StoredState lastState() {
          return view.lastState();
        }

        @Override
        public long lastCompletedCheckpointId() {
          return view.lastCompletedCheckpointId();
        }

        @Override
        public void appendState(long checkpointId, byte[] payload) {
          long t0 = System.nanoTime();
          view.appendState(checkpointId, payload);
          appendNanos += System.nanoTime() - t0;
          lastPayloadBytes = payload.length;
        }

        @Override
        public void appendCompletion(long checkpointId) {
          view.appendCompletion(checkpointId);
        }

        @Override
        public void close() {
          view.close();
        }
      };
    }

    @Override
    public long ownerEpoch() {
      return delegate.ownerEpoch();
    }

    @Override
    public String logId() {
      return delegate.logId();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /** The same durable work by hand. */
  static final class RawSink implements Sink {
    private final Path outDir;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
    private final FileChannel decisionLog; // null: no decision record
    private final ByteBuffer decision = ByteBuffer.allocateDirect(DECISION_BYTES);
    private final ByteBuffer mark; // null: no completion mark
    private long decisionLogSize;
    private final Phases phases;
    private FileChannel part; // null until the first record after a checkpoint
    private Path partFile;
    private long index;
    /** Refuse line breaks, as {@code RecordEncoders.lines()} does. */
    private final boolean lineCheck;

    RawSink(Path dir, boolean withDecision, boolean withMark) throws IOException {
      this(dir, withDecision, withMark, false);
    }

    RawSink(Path dir, boolean withDecision, boolean withMark, boolean lineCheck) throws IOException {
      this.lineCheck = lineCheck;
      outDir = Files.createDirectory(dir.resolve("out"));
      fsyncDirectory(dir);
      if (withDecision) {
        Path logDir = Files.createDirectory(dir.resolve("log"));
        fsyncDirectory(dir);
        decisionLog = FileChannel.open(logDir.resolve("decisions.log"),
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        fsyncDirectory(logDir);
        byte[] bytes = new byte[DECISION_BYTES];
        new SplittableRandom(7).nextBytes(bytes);
        decision.put(bytes).flip();
      } else {
        decisionLog = null;
      }
      mark = withMark ? ByteBuffer.allocateDirect(MARK_BYTES) : null;
      phases = withDecision
          ? new Phases("preCommit [drain, fsync, close, dir fsync]", "decision [write, fdatasync]",
              "commit [rename, dir fsync]")
          : new Phases("preCommit [drain, fsync, close, dir fsync]", "commit [rename, dir fsync]");
      if (withMark) {
        phases.labels[2] = "commit [rename, dir fsync, mark]";
      }
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
      fsyncDirectory(outDir);
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
      fsyncDirectory(outDir);
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
    public Phases phases() {
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
}
