package dev.twophase.benchmarks;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog.CoordinatorLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.LongAdder;

/**
 * Group commit measured in pairs: one appender, then {@code N} appenders, then one again, and so
 * on, each phase a few seconds long, all on one {@link FileStateLog}, as in {@link
 * StateLogAppendBenchmark}'s {@code appendState_tNN}. Prints the ratio of each {@code N}-appender
 * phase to the mean of the single-appender phases around it.
 *
 * <p>Why not JMH alone: JMH runs {@code appendState_t01} and {@code appendState_t64} minutes
 * apart, and this machine's {@code fdatasync} latency drifts by 2x and more within minutes, so
 * their ratio compares two moments of the disk. Alternating every few seconds puts each
 * {@code N}-appender phase between two single-appender phases of the same minute.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.twophase.benchmarks.GroupCommitPairs \
 *     [appenders=64] [pairs=6] [seconds=5] [warmupSeconds=10]
 * }</pre>
 *
 * <p>Files go under {@code -Dbench.dir} or {@code benchmarks/target/} (see {@link BenchDirs}) and
 * are deleted afterwards. The results go, as {@code [pairs]} lines, to the report file of the other
 * benchmarks ({@code bench-report.txt} next to {@code benchmarks.jar}, or {@code -Dbench.report}).
 */
public final class GroupCommitPairs {

  private GroupCommitPairs() {}

  public static void main(String[] args) throws Exception {
    int appenders = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 6;
    long phaseNanos = (args.length > 2 ? Long.parseLong(args[2]) : 5) * 1_000_000_000L;
    long warmupNanos = (args.length > 3 ? Long.parseLong(args[3]) : 10) * 1_000_000_000L;
    Path dir = BenchDirs.fresh("group-commit-pairs-");
    try (FileStateLog log = FileStateLog.open(dir.resolve("log"))) {
      Appenders all = new Appenders(log, appenders);
      try {
        // Warm-up: both shapes, so that neither phase runs cold code.
        all.run(1, warmupNanos / 2);
        all.run(appenders, warmupNanos / 2);
        double[] single = new double[pairs + 1];
        double[] group = new double[pairs];
        double[] perSync = new double[pairs];
        single[0] = all.run(1, phaseNanos).rate;
        for (int i = 0; i < pairs; i++) {
          Phase g = all.run(appenders, phaseNanos);
          group[i] = g.rate;
          perSync[i] = g.appendsPerSync;
          single[i + 1] = all.run(1, phaseNanos).rate;
          double around = (single[i] + single[i + 1]) / 2;
          BenchReport.line(
              "[pairs] pair %d: 1 appender %,.0f/s and %,.0f/s; %d appenders %,.0f/s (%.1f appends"
                  + " per sync); ratio %.1f",
              i + 1, single[i], single[i + 1], appenders, group[i], perSync[i], group[i] / around);
        }
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
          ratios[i] = group[i] / ((single[i] + single[i + 1]) / 2);
        }
        Arrays.sort(ratios);
        BenchReport.line(
            "[pairs] %d appenders / 1 appender: median %.1f, range %.1f-%.1f over %d pairs",
            appenders, median(ratios), ratios[0], ratios[pairs - 1], pairs);
      } finally {
        all.stop();
      }
    } finally {
      BenchDirs.deleteRecursively(dir);
    }
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private record Phase(double rate, double appendsPerSync) {}

  /**
   * Appender threads, each with its own coordinator id, started once; a phase lets the first
   * {@code n} of them append for a while, the others wait at the next phase's barrier.
   */
  private static final class Appenders {
    private final FileStateLog log;
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder appends = new LongAdder();
    private volatile int active;
    private volatile long phaseEnd;
    private volatile boolean stopped;
    private volatile CyclicBarrier start;
    private volatile CyclicBarrier end;

    Appenders(FileStateLog log, int count) {
      this.log = log;
      for (int i = 0; i < count; i++) {
        int index = i;
        CoordinatorLog view = log.open("c-" + i);
        byte[] payload = new byte[StateLogAppendBenchmark.PAYLOAD_BYTES];
        new SplittableRandom(i).nextBytes(payload);
        Thread t = new Thread(() -> loop(index, view, payload), "appender-" + i);
        t.setDaemon(true); // never outlives main, even if main fails
        threads.add(t);
      }
      start = new CyclicBarrier(count + 1);
      end = new CyclicBarrier(count + 1);
      threads.forEach(Thread::start);
    }

    private void loop(int index, CoordinatorLog view, byte[] payload) {
      long checkpointId = 0;
      try {
        for (;;) {
          start.await();
          if (stopped) {
            return;
          }
          if (index < active) {
            while (System.nanoTime() < phaseEnd) {
              view.appendState(++checkpointId, payload);
              appends.increment();
            }
          }
          end.await();
        }
      } catch (Exception e) {
        throw new IllegalStateException("appender " + index + " failed", e);
      }
    }

    /** Runs {@code n} appenders for {@code nanos}; returns their appends per second. */
    Phase run(int n, long nanos) throws Exception {
      active = n;
      appends.reset();
      long syncs = log.stats().syncs();
      long begin = System.nanoTime();
      phaseEnd = begin + nanos;
      start.await();
      end.await();
      double seconds = (System.nanoTime() - begin) / 1e9;
      long done = appends.sum();
      long synced = log.stats().syncs() - syncs;
      return new Phase(done / seconds, synced == 0 ? 0 : (double) done / synced);
    }

    void stop() throws Exception {
      stopped = true;
      start.await();
      for (Thread t : threads) {
        t.join();
      }
    }
  }
}
