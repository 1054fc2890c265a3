package dev.twophase;

import dev.twophase.annotation.Experimental;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Runs a task on an executor after a delay: how the coordinator waits out the backoff before it
 * retries a failed commit; like Caffeine's {@code Scheduler}. Inject a manual one in tests, so that
 * backoff can be tested without waiting.
 */
@FunctionalInterface
@Experimental
public interface Scheduler {

  /**
   * Submits {@code command} to {@code executor} once {@code delay} has passed; returns at once.
   * If the executor rejects it (it was shut down meanwhile), the rejection must not be lost
   * silently: the executors the coordinator passes log it themselves.
   */
  void schedule(Executor executor, Runnable command, Duration delay);

  /** Delays on the JDK's shared delayer thread ({@code CompletableFuture.delayedExecutor}). */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
