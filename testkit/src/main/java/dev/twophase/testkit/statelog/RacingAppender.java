package dev.twophase.testkit.statelog;

import dev.twophase.StateLog.CoordinatorLog;
import java.util.concurrent.TimeUnit;

/**
 * A thread that appends checkpoints 2, 3, ... to one view as fast as it can, until an append
 * fails or it is stopped: the owner whose coordinator another owner claims meanwhile. Knows the
 * last checkpoint whose append returned, and the failure that ended it.
 */
final class RacingAppender {

  private final CoordinatorLog view;
  private final Thread thread;
  private volatile long lastReturned = 1;
  private volatile Throwable failure;
  private volatile boolean stopped;

  RacingAppender(CoordinatorLog view) {
    this.view = view;
    this.thread = new Thread(this::run, "statelog-suite-appender " + view.coordinatorId());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    String c = view.coordinatorId();
    for (long id = 2; !stopped; id++) {
      try {
        view.appendState(id, Payloads.of(c, id));
      } catch (Throwable t) { // whatever ends it is what the suite judges
        failure = t;
        return;
      }
      lastReturned = id;
    }
  }

  /** Waits until {@code n} appends returned (or the thread ended, or 60 s passed). */
  void awaitAppends(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (lastReturned < 1 + n && thread.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
  }

  /** Waits up to {@code millis} for an append to fail; null if none did. */
  Throwable awaitFailure(long millis) throws InterruptedException {
    thread.join(millis);
    return thread.isAlive() ? null : failure;
  }

  long lastReturned() {
    return lastReturned;
  }

  /** Stops the thread, if it still runs, and waits for it. */
  void stop() throws InterruptedException {
    stopped = true;
    thread.join(60_000);
  }
}
