package dev.twophase.benchmarks.statelog;

import java.util.Arrays;

/** A growable list of latencies in nanoseconds, and their percentiles. Not thread-safe. */
final class Latencies {
  private long[] values = new long[1024];
  private int size;

  void add(long nanos) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = nanos;
  }

  void addAll(Latencies other) {
    if (size + other.size > values.length) {
      values = Arrays.copyOf(values, Math.max(values.length * 2, size + other.size));
    }
    System.arraycopy(other.values, 0, values, size, other.size);
    size += other.size;
  }

  void clear() {
    size = 0;
  }

  int size() {
    return size;
  }

  /**
   * The {@code p}-th percentile (0 to 100, nearest rank) in microseconds, NaN if empty. Sorts the
   * values in place.
   */
  double percentileMicros(double p) {
    if (size == 0) {
      return Double.NaN;
    }
    Arrays.sort(values, 0, size);
    int rank = (int) Math.ceil(p / 100.0 * size);
    return values[Math.min(size - 1, Math.max(0, rank - 1))] / 1e3;
  }
}
