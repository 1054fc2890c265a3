package dev.twophase.benchmarks.statelog;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A variant's threads for one thread count, kept for the whole phase: each thread makes its worker
 * on itself (a coordinator belongs to the thread that first writes to it), then, each turn, runs
 * operations from the start until the stop, timing each, and the worker's {@code endTurn} (a
 * coordinator waits for its last commit there), within the turn's time. {@link #close} closes
 * every worker on its own thread.
 */
final class TimedCrew {

  /** One thread's operations. */
  interface Worker {
    /** One operation: an append, a checkpoint. */
    void op() throws Exception;

    /** After the turn's last operation, on the same thread; timed with the turn. */
    default void endTurn() throws Exception {}

    /** At the end of the phase, on the same thread. */
    void close() throws Exception;
  }

  /** What a variant's store counts during a turn (appends per sync or per transaction, say). */
  interface Probe {
    /** At the start of a turn. */
    void start();

    /** At its end: what happened since {@link #start()}, for the turn's line. */
    String end(long elapsedNanos);
  }

  /** A variant: makes the worker of each thread; closed after its crew. */
  interface Variant {
    Worker worker(int thread) throws Exception;

    /** The store's counters for each turn, or null. */
    default Probe probe() {
      return null;
    }

    /** After its crew closed. */
    default void close() throws Exception {}
  }

  /** One turn: operations, elapsed and process CPU nanoseconds, and each operation's latency. */
  record Turn(long ops, long elapsedNanos, long cpuNanos, Latencies latencies) {
    double rate() {
      return ops * 1e9 / elapsedNanos;
    }

    double cpuMicrosPerOp() {
      return cpuNanos / 1e3 / Math.max(1, ops);
    }
  }

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  /** How long past its end a turn may take (a worker's last operation, its endTurn). */
  private static final long GRACE_SECONDS = 90;

  private final String name;
  private final CyclicBarrier start;
  private final CyclicBarrier end;
  private final AtomicLong done = new AtomicLong();
  private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
  private final Latencies[] latencies;
  private final CountDownLatch closed;
  private volatile boolean stop;
  private volatile boolean quit;
  private boolean broken;

  /**
   * Starts {@code threads} threads, each making its worker.
   *
   * @throws IllegalStateException if a worker could not be made; the others were closed
   */
  TimedCrew(String name, int threads, Variant variant) throws Exception {
    this.name = name;
    start = new CyclicBarrier(threads + 1);
    end = new CyclicBarrier(threads + 1);
    latencies = new Latencies[threads];
    closed = new CountDownLatch(threads);
    CountDownLatch ready = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      int index = t;
      latencies[t] = new Latencies();
      Thread thread = new Thread(() -> run(variant, index, ready), name + "-" + t);
      thread.setDaemon(true);
      thread.start();
    }
    if (!ready.await(5, TimeUnit.MINUTES)) {
      broken = true;
      throw new IllegalStateException(name + ": its workers were not ready after 5 minutes");
    }
    if (!failures.isEmpty()) {
      Throwable first = failures.get(0);
      IllegalStateException e = new IllegalStateException(name + ": a worker could not be made: " + first, first);
      failures.clear();
      try {
        close();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private void run(Variant variant, int index, CountDownLatch ready) {
    Worker w = null;
    try {
      w = variant.worker(index);
    } catch (Throwable e) {
      failures.add(e);
    } finally {
      ready.countDown();
    }
    Latencies mine = latencies[index];
    try {
      while (true) {
        start.await();
        if (quit) {
          try {
            if (w != null) {
              w.close();
            }
          } finally {
            closed.countDown();
          }
          return;
        }
        try {
          mine.clear();
          long n = 0;
          while (!stop && w != null) {
            long t0 = System.nanoTime();
            w.op();
            mine.add(System.nanoTime() - t0);
            n++;
          }
          done.addAndGet(n);
          if (w != null) {
            w.endTurn();
          }
        } catch (Throwable e) {
          failures.add(e);
        }
        end.await();
      }
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  /**
   * One turn of about {@code millis}.
   *
   * @throws IllegalStateException if a worker failed or the turn did not end; the crew is then
   *     broken and closes nothing more
   */
  Turn turn(long millis) throws Exception {
    if (broken) {
      throw new IllegalStateException(name + " is broken");
    }
    stop = false;
    done.set(0);
    long cpu0 = OS.getProcessCpuTime();
    long t0 = System.nanoTime();
    start.await();
    Thread.sleep(millis);
    stop = true;
    try {
      end.await(millis / 1000 + GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      broken = true;
      throw new IllegalStateException(name + ": the turn did not end " + GRACE_SECONDS
          + " s after its time (a worker hangs)" + (failures.isEmpty() ? "" : ": " + failures.get(0)), e);
    }
    long elapsed = System.nanoTime() - t0;
    long cpu = OS.getProcessCpuTime() - cpu0;
    if (!failures.isEmpty()) {
      Throwable first = failures.get(0);
      failures.clear();
      throw new IllegalStateException(name + ": a worker failed: " + first, first);
    }
    Latencies all = new Latencies();
    for (Latencies l : latencies) {
      all.addAll(l);
    }
    return new Turn(done.get(), elapsed, cpu, all);
  }

  /** Closes every worker on its thread, waiting up to a minute. Not for a broken crew. */
  void close() throws Exception {
    if (broken) {
      return;
    }
    quit = true;
    start.await(1, TimeUnit.MINUTES);
    if (!closed.await(1, TimeUnit.MINUTES)) {
      throw new IllegalStateException(name + ": its workers did not close within a minute");
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(name + ": a worker did not close: " + failures.get(0), failures.get(0));
    }
  }
}
