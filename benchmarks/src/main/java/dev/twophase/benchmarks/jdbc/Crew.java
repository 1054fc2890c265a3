package dev.twophase.benchmarks.jdbc;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A variant's threads for one thread count, kept for the whole run (a coordinator belongs to the
 * thread that first writes to it): each turn they run transactions from {@code start} until
 * {@code stop}; {@link #close} closes every worker on its own thread.
 */
final class Crew {

  /** One thread's transactions. */
  interface Worker extends AutoCloseable {
    void transaction() throws Exception;
  }

  /** Makes the worker of thread {@code t}. */
  interface Workers {
    Worker worker(int t) throws Exception;
  }

  private final CyclicBarrier start;
  private final CyclicBarrier end;
  private final AtomicLong done = new AtomicLong();
  private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean stop;
  private volatile boolean quit;

  Crew(String name, int threads, Workers workers) throws Exception {
    start = new CyclicBarrier(threads + 1);
    end = new CyclicBarrier(threads + 1);
    for (int t = 0; t < threads; t++) {
      Worker w = workers.worker(t);
      Thread thread = new Thread(() -> {
        try {
          while (true) {
            start.await();
            if (quit) {
              w.close();
              return;
            }
            try {
              while (!stop) {
                w.transaction();
                done.incrementAndGet();
              }
            } catch (Throwable e) {
              failures.add(e);
            }
            end.await();
          }
        } catch (Exception e) {
          failures.add(e);
        }
      }, name + "-" + t);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /** One turn of about {@code millis}: {transactions, elapsed nanos, process CPU nanos}. */
  long[] turn(long millis) throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    stop = false;
    done.set(0);
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    start.await();
    Thread.sleep(millis);
    stop = true;
    end.await();
    long elapsed = System.nanoTime() - t0;
    long cpu = os.getProcessCpuTime() - cpu0;
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a worker failed", failures.get(0));
    }
    return new long[] {done.get(), elapsed, cpu};
  }

  void close() throws Exception {
    quit = true;
    start.await();
  }
}
