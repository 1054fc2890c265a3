package dev.twophase.benchmarks;

import dev.twophase.FaultInjector;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link FaultInjector} that only notes the time at every named point it reaches (the
 * coordinator's protocol points, a participant's own) and sums the time from each point to the
 * next: where a checkpoint's time goes. Diagnostic; its synchronization costs a little at every
 * point.
 */
public final class PhaseTimer implements FaultInjector {

  private final Map<String, long[]> between = new LinkedHashMap<>(); // "a -> b": {count, nanos}
  private String last = "start";
  private long lastAt = System.nanoTime();

  @Override
  public synchronized void reached(String point) {
    long now = System.nanoTime();
    long[] s = between.computeIfAbsent(last + " -> " + point, k -> new long[2]);
    s[0]++;
    s[1] += now - lastAt;
    last = point;
    lastAt = now;
  }

  /** Starts a new interval at {@code point} without counting the time since the last one. */
  public synchronized void restartAt(String point) {
    last = point;
    lastAt = System.nanoTime();
  }

  /** Forgets everything noted so far (after a warm-up). */
  public synchronized void clear() {
    between.clear();
  }

  /** One checkpoint of a probe: its records and the checkpoint, with whatever points it notes. */
  @FunctionalInterface
  public interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code step} {@code checkpoints} times; the first fifth warms up (neither it nor its
   * intervals are counted). Returns the mean milliseconds per counted step.
   */
  public double run(int checkpoints, Step step) throws Exception {
    long total = 0;
    for (int i = 0; i < checkpoints; i++) {
      if (i == checkpoints / 5) {
        clear();
        total = 0;
      }
      long t0 = System.nanoTime();
      step.run();
      total += System.nanoTime() - t0;
    }
    return total / 1e6 / (checkpoints - checkpoints / 5);
  }

  /** Prints the mean time of every interval seen, each line prefixed. */
  public synchronized void print(String prefix) {
    between.forEach((k, v) -> System.out.printf(Locale.ROOT, "%s  %-75s %6d x %8.3f ms%n", prefix, k, v[0],
        v[1] / 1e6 / v[0]));
  }
}
