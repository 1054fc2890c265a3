package dev.twophase.benchmarks;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Latency of one checkpoint of a {@link Coordinator} over a {@link FileStateLog} on disk, with 1 or
 * 2 {@link InMemoryParticipant}s, each given one record per checkpoint:
 *
 * <ul>
 *   <li>{@code decided}: {@code checkpoint()} returns: every participant pre-committed, the next
 *       transactions begun, the decision appended and synced; the commits run on the committer
 *       thread meanwhile.
 *   <li>{@code committed}: the same, then waits until the committer thread has committed the
 *       checkpoint in every participant (and written its completion mark): the whole cycle.
 * </ul>
 *
 * <p>The log goes to a fresh directory per trial under {@code -Dbench.dir} or
 * {@code benchmarks/target/} (see {@link BenchDirs}). The sync dominates; compare with
 * {@code StateLogAppendBenchmark.rawFsync_t01} on the same disk.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
@State(Scope.Thread)
public class CheckpointBenchmark {

  @Param({"1", "2"})
  public int participants;

  private Path dir;
  private FileStateLog log;
  private Coordinator coordinator;
  private final List<Output<String>> outputs = new ArrayList<>();

  @Setup(Level.Trial)
  public void setUp() {
    dir = BenchDirs.fresh("checkpoint-bench-");
    log = FileStateLog.open(dir.resolve("log"));
    Coordinator.Builder builder = Coordinator.builder("checkpoint-bench", log);
    List<InMemoryParticipant<String>> list = new ArrayList<>();
    for (int i = 0; i < participants; i++) {
      InMemoryParticipant<String> p = new InMemoryParticipant<>(new InMemoryResource<>());
      list.add(p);
      builder.participant("p" + i, p);
    }
    coordinator = builder.build();
    for (InMemoryParticipant<String> p : list) {
      outputs.add(coordinator.output(p));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    try {
      coordinator.close();
      log.close();
    } finally {
      BenchDirs.deleteRecursively(dir);
    }
  }

  private Checkpoint writeAndCheckpoint() {
    for (int i = 0; i < outputs.size(); i++) {
      outputs.get(i).write("record");
    }
    return coordinator.checkpoint();
  }

  /** Until the decision is durable ({@code checkpoint()} returns). */
  @Benchmark
  public Checkpoint decided() {
    return writeAndCheckpoint();
  }

  /** Until every participant committed the checkpoint. */
  @Benchmark
  public Checkpoint committed() {
    Checkpoint c = writeAndCheckpoint();
    c.awaitCommitted(Duration.ofSeconds(30));
    return c;
  }
}
