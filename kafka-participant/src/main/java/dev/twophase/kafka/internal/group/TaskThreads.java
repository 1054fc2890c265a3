package dev.twophase.kafka.internal.group;

import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The threads a group runner's tasks process and checkpoint on, so that the tasks of one process
 * checkpoint at the same time rather than one after another: a checkpoint mostly waits for its
 * resources (a Kafka participant's flush and input offsets, the state log's append), and on one
 * polling thread six tasks' checkpoints add up. Each task is bound to one thread for its life
 * (its coordinator's application thread), the least loaded when it starts. The polling thread
 * hands each thread its share of a poll and waits for all of them ({@link #runAll}), so that no
 * task runs while the consumer polls, seeks or rebalances.
 */
@Internal
public final class TaskThreads implements AutoCloseable {

  private final ExecutorService[] threads;
  private final int[] load;

  public TaskThreads(String group, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("taskThreads must be at least 1, was " + count);
    }
    threads = new ExecutorService[count];
    load = new int[count];
    for (int i = 0; i < count; i++) {
      String name = "twophase-group-" + group + "-task-" + i;
      threads[i] = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
      });
    }
  }

  /** Binds a new task to the least loaded thread; returns the thread's index. */
  public int bind() {
    int best = 0;
    for (int i = 1; i < load.length; i++) {
      if (load[i] < load[best]) {
        best = i;
      }
    }
    load[best]++;
    return best;
  }

  /** A task bound to {@code thread} ended. */
  public void unbind(int thread) {
    load[thread]--;
  }

  /** Runs {@code work} on {@code thread} and waits for it; its failure is rethrown as it is. */
  public <T> T run(int thread, Callable<T> work) throws Exception {
    return await(threads[thread].submit(work));
  }

  /**
   * Runs each thread's share ({@code work.get(i)} for thread {@code i}, null for none) at once,
   * and waits for all of them; the first failure is rethrown as it is, after every share ended.
   */
  public void runAll(List<Callable<Void>> work) throws Exception {
    List<Future<Void>> running = new ArrayList<>(work.size());
    for (int i = 0; i < work.size(); i++) {
      Callable<Void> share = work.get(i);
      running.add(share == null ? null : threads[i].submit(share));
    }
    Exception first = null;
    for (Future<Void> f : running) {
      if (f == null) {
        continue;
      }
      try {
        await(f);
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  public int count() {
    return threads.length;
  }

  private static <T> T await(Future<T> f) throws Exception {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new TwoPhaseException("a task thread failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TwoPhaseException("interrupted while waiting for the task threads", e);
    }
  }

  /** Stops the threads once their work is done (every task was closed before). */
  @Override
  public void close() {
    for (ExecutorService t : threads) {
      t.shutdown();
    }
    for (ExecutorService t : threads) {
      try {
        if (!t.awaitTermination(30, TimeUnit.SECONDS)) {
          t.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        t.shutdownNow();
      }
    }
  }
}
