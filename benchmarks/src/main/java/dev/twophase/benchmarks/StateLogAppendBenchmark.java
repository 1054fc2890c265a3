package dev.twophase.benchmarks;

import dev.twophase.FileStateLog;
import dev.twophase.StateLogStats;
import dev.twophase.StateLog.CoordinatorLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Durable appends to a {@link FileStateLog}: {@code CoordinatorLog.appendState} returns only after
 * {@code fdatasync}, and concurrent appenders (each for its own coordinator id, as coordinators of
 * different partitions would) share syncs through group commit.
 *
 * <ul>
 *   <li>{@code appendState_tNN}: NN threads, each appending ~200-byte states with increasing
 *       checkpoint ids for its own coordinator {@code "c-<thread index>"} of one shared log.
 *   <li>{@code rawFsync_tNN}: the physical limit on the same disk: each thread appends a 220-byte
 *       buffer to its own file with {@code FileChannel.write} and {@code force(false)}, in a loop.
 * </ul>
 *
 * <p>Files go to a fresh directory per trial under {@code -Dbench.dir} or {@code benchmarks/target/}
 * (see {@link BenchDirs}); it is deleted afterwards. Throughput is in appends per second, all
 * threads together.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class StateLogAppendBenchmark {

  /** Size of a state record's payload: a realistic small coordinator state. */
  static final int PAYLOAD_BYTES = 200;
  /** Size of one raw write: about what a 200-byte state record takes in the log. */
  static final int RAW_BYTES = 220;

  /** The trial's directory, on the disk being measured. */
  @State(Scope.Benchmark)
  public static class Dir {
    Path path;

    @Setup(Level.Trial)
    public void create() {
      path = BenchDirs.fresh("statelog-bench-");
    }

    @TearDown(Level.Trial)
    public void delete() {
      BenchDirs.deleteRecursively(path);
    }
  }

  /**
   * One log shared by every appender thread. After each iteration it prints how many appends each
   * sync covered ({@code appends per sync}), from the log's own counters ({@link
   * FileStateLog#stats()}).
   */
  @State(Scope.Benchmark)
  public static class Log {
    FileStateLog log;
    private StateLogStats atStart;

    @Setup(Level.Trial)
    public void open(Dir dir) {
      log = FileStateLog.open(dir.path.resolve("log"));
    }

    @Setup(Level.Iteration)
    public void countFrom() {
      atStart = log.stats();
    }

    @TearDown(Level.Iteration)
    public void report() {
      StateLogStats s = log.stats().minus(atStart);
      BenchReport.line(
          "[state log] %d appends, %d syncs: %.1f appends per sync",
          s.stateAppends(), s.syncs(), s.appendsPerSync());
    }

    @TearDown(Level.Trial)
    public void close() {
      log.close();
    }
  }

  /** One appender: its own coordinator id and checkpoint ids. */
  @State(Scope.Thread)
  public static class Appender {
    CoordinatorLog view;
    byte[] payload;
    long checkpointId;

    @Setup(Level.Trial)
    public void open(Log log, ThreadParams thread) {
      view = log.log.open("c-" + thread.getThreadIndex());
      payload = new byte[PAYLOAD_BYTES];
      new SplittableRandom(thread.getThreadIndex()).nextBytes(payload);
      checkpointId = view.lastState() == null ? 0 : view.lastState().checkpointId();
    }

    @TearDown(Level.Trial)
    public void close() {
      view.close();
    }
  }

  /** One raw writer: its own file in the trial's directory. */
  @State(Scope.Thread)
  public static class RawFile {
    FileChannel channel;
    ByteBuffer buffer;
    long position;

    @Setup(Level.Trial)
    public void open(Dir dir, ThreadParams thread) throws IOException {
      channel =
          FileChannel.open(
              dir.path.resolve("raw-" + thread.getThreadIndex() + ".bin"),
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE);
      byte[] bytes = new byte[RAW_BYTES];
      new SplittableRandom(thread.getThreadIndex()).nextBytes(bytes);
      buffer = ByteBuffer.allocateDirect(RAW_BYTES);
      buffer.put(bytes).flip();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      channel.close();
    }
  }

  private static void append(Appender a) {
    a.view.appendState(++a.checkpointId, a.payload);
  }

  private static void rawAppend(RawFile f) throws IOException {
    ByteBuffer b = f.buffer;
    b.rewind();
    while (b.hasRemaining()) {
      f.position += f.channel.write(b, f.position);
    }
    f.channel.force(false);
  }

  @Benchmark
  @Threads(1)
  public void rawFsync_t01(RawFile f) throws IOException {
    rawAppend(f);
  }

  @Benchmark
  @Threads(4)
  public void rawFsync_t04(RawFile f) throws IOException {
    rawAppend(f);
  }

  @Benchmark
  @Threads(1)
  public void appendState_t01(Appender a) {
    append(a);
  }

  @Benchmark
  @Threads(4)
  public void appendState_t04(Appender a) {
    append(a);
  }

  @Benchmark
  @Threads(16)
  public void appendState_t16(Appender a) {
    append(a);
  }

  @Benchmark
  @Threads(64)
  public void appendState_t64(Appender a) {
    append(a);
  }
}
