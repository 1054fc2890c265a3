package dev.twophase.benchmarks;

import java.io.IOException;
import java.util.Arrays;

/**
 * The {@code interleaved} variant of {@link FileParticipantBenchmark}: its sinks take turns of
 * {@code turn} batches (a batch: {@code checkpointEvery} records and their checkpoint) in one fork,
 * each turn timed as a whole, its last commit included; after each iteration the rates of the
 * sinks and their ratios, all from the same seconds ({@code [interleaved] ...}).
 */
final class InterleavedTurns {

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  private final FileBenchSink[] sinks;
  private final String[] names;
  private final int turn;

  // per sink, the batches timed in this iteration and their time
  private int current;
  private int batchesInTurn;
  private long batchStart;
  private boolean skipBatch;
  private final long[] batchNanos;
  private final long[] batchCount;
  /** Per sink, the part of its timed batches spent in checkpoints (and in draining a pipelined commit). */
  private final long[] checkpointNanos;
  private long turnCheckpointNanos;
  /**
   * Per sink, the CPU time of the whole process (every thread: the application's, the committer,
   * the background directory sync, the state log's, GC) during its timed turns. On a machine whose
   * CPUs are shared with other work, elapsed time measures the waits for a CPU as much as the work;
   * this measures the work.
   */
  private final long[] cpuNanos;
  private long turnCpuStart;

  /** {@code sinks} take turns of {@code turn} batches, in their order, named {@code names}. */
  InterleavedTurns(FileBenchSink[] sinks, String[] names, int turn) {
    this.sinks = sinks;
    this.names = names;
    this.turn = turn;
    batchNanos = new long[sinks.length];
    batchCount = new long[sinks.length];
    checkpointNanos = new long[sinks.length];
    cpuNanos = new long[sinks.length];
  }

  /** The sink whose turn it is. */
  FileBenchSink sink() {
    return sinks[current];
  }

  /**
   * Forgets the times of the previous iteration. {@code batchInProgress}: the current sink has
   * written records since its last checkpoint.
   */
  void iterationStart(boolean batchInProgress) {
    Arrays.fill(batchNanos, 0);
    Arrays.fill(batchCount, 0);
    Arrays.fill(checkpointNanos, 0);
    Arrays.fill(cpuNanos, 0);
    turnCheckpointNanos = 0;
    turnCpuStart = OS.getProcessCpuTime();
    // The batch (turn) in progress began in the previous iteration: do not time it.
    skipBatch = batchInProgress || batchesInTurn != 0;
    batchStart = System.nanoTime();
  }

  /** Checkpoints the current sink's batch, timed; after its turn's last batch, the next sink's turn. */
  void checkpoint() throws IOException {
    long t0 = System.nanoTime();
    sinks[current].checkpoint();
    turnCheckpointNanos += System.nanoTime() - t0;
    nextSink();
  }

  /**
   * After {@code turn} batches, finishes the sink's background work, books the turn's batches and
   * time to it and hands over to the next sink.
   */
  private void nextSink() throws IOException {
    if (++batchesInTurn < turn) {
      return;
    }
    batchesInTurn = 0;
    long t0 = System.nanoTime();
    sinks[current].drain();
    long now = System.nanoTime();
    turnCheckpointNanos += now - t0;
    long cpu = OS.getProcessCpuTime();
    if (!skipBatch) {
      batchNanos[current] += now - batchStart;
      batchCount[current] += turn;
      checkpointNanos[current] += turnCheckpointNanos;
      cpuNanos[current] += cpu - turnCpuStart;
    }
    turnCheckpointNanos = 0;
    turnCpuStart = cpu;
    skipBatch = false;
    batchStart = now;
    current = (current + 1) % sinks.length;
  }

  /**
   * This iteration's rates, with the nanoseconds per record and the part of them spent writing,
   * the CPU time per record and the ratios of the CPU times and of the rates, the first sink's to
   * each other's: the body of the {@code [interleaved]} line.
   */
  String report(int checkpointEvery) {
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
    return rates.toString();
  }
}
