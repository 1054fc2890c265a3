package dev.twophase.benchmarks;

import java.util.Arrays;

/** Time per checkpoint phase of a {@link FileBenchSink}, summed over one iteration. */
final class CheckpointPhases {
  private final String[] labels;
  private final long[] nanos;
  private long checkpoints;

  CheckpointPhases(String... labels) {
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
