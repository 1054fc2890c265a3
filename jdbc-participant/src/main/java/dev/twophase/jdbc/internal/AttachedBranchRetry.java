package dev.twophase.jdbc.internal;

import dev.twophase.Scheduler;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Retries a step while the database says another session still holds the branch ({@link
 * BranchStillAttachedException}): after a crash or an aborted connection, MariaDB frees a prepared
 * branch only once it notices that the session ended. The pauses between attempts double from
 * {@value #FIRST_PAUSE_MILLIS} ms up to {@value #MAX_PAUSE_MILLIS} ms and are waited out through
 * the participant's {@link Scheduler}; once they add up to {@value #BUDGET_MILLIS} ms the last
 * {@link BranchStillAttachedException} is thrown, for the caller (the coordinator) to retry later.
 *
 * <p>Threads: shared; each call waits on its own thread.
 */
final class AttachedBranchRetry {

  /** How long, in pauses, to wait for the database to notice that a session holding a branch ended. */
  static final long BUDGET_MILLIS = 5_000;
  static final long FIRST_PAUSE_MILLIS = 10;
  static final long MAX_PAUSE_MILLIS = 500;

  /** A step that may find the branch still attached. */
  @FunctionalInterface
  interface Step {
    Resolution run() throws SQLException;
  }

  private final Scheduler scheduler;

  AttachedBranchRetry(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * Runs {@code step} until it does not find the branch still attached, or the budget is spent.
   *
   * @throws BranchStillAttachedException the last one, once the pauses add up to the budget or
   *     the thread is interrupted (its interrupt flag is set again)
   */
  Resolution run(Step step) throws SQLException {
    long waited = 0;
    long pause = FIRST_PAUSE_MILLIS;
    while (true) {
      try {
        return step.run();
      } catch (BranchStillAttachedException e) {
        if (waited >= BUDGET_MILLIS) {
          throw e;
        }
        long next = Math.min(pause, BUDGET_MILLIS - waited);
        pause(Duration.ofMillis(next), e);
        waited += next;
        pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
      }
    }
  }

  private void pause(Duration pause, BranchStillAttachedException attached)
      throws BranchStillAttachedException {
    CompletableFuture<Void> over = new CompletableFuture<>();
    scheduler.schedule(Runnable::run, () -> over.complete(null), pause);
    try {
      over.get();
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      attached.addSuppressed(interrupted);
      throw attached;
    } catch (ExecutionException impossible) {
      throw new IllegalStateException("a pause that only completes normally failed", impossible);
    }
  }

  @Override
  public String toString() {
    return "AttachedBranchRetry(" + scheduler + ")";
  }
}
