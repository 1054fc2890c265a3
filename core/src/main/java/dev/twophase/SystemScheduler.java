package dev.twophase;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** {@link Scheduler#system()}. */
enum SystemScheduler implements Scheduler {
  INSTANCE;

  @Override
  public void schedule(Executor executor, Runnable command, Duration delay) {
    CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS, executor).execute(command);
  }

  @Override
  public String toString() {
    return "Scheduler.system()";
  }
}
