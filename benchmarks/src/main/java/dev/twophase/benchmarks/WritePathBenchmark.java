package dev.twophase.benchmarks;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.RecordWriter;
import dev.twophase.testing.InMemoryStateLog;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The coordinator's per-record overhead: {@link Output#write} through a {@link Coordinator} (over
 * an {@link InMemoryStateLog}; no checkpoint is taken during the measurement) against calling the
 * participant's {@code write(transaction, record)} directly, with the same participant doing the
 * same minimal work ({@link CountingParticipant}). The difference is what the coordinator adds: a
 * null check, a state check, a field read and a counter. Run with {@code -prof gc} to see that the
 * coordinator path allocates nothing ({@code gc.alloc.rate.norm} of about 0 B/op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class WritePathBenchmark {

  private InMemoryStateLog log;
  private Coordinator coordinator;
  private CountingParticipant participant;
  private Output<Object> output;
  private RecordWriter<Object> writer;
  private final Object record = "a record";

  @Setup(Level.Trial)
  public void setUp() {
    log = new InMemoryStateLog();
    participant = new CountingParticipant();
    coordinator = Coordinator.builder("write-path", log).participant("count", participant).build();
    output = coordinator.output(participant);
    writer = participant.writerFor(coordinator.currentTransaction(participant));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (participant.written() == 0) {
      throw new IllegalStateException("nothing was written");
    }
    coordinator.close();
    log.close();
  }

  /** Through the coordinator: what the application calls. */
  @Benchmark
  public long coordinatorOutput() {
    output.write(record);
    return participant.written;
  }

  /** The baseline: the participant's own writer of the same transaction. */
  @Benchmark
  public long directWrite() throws Exception {
    writer.write(record);
    return participant.written;
  }
}
