package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.SQLException;

/**
 * Retries a step while the database says another session still holds the branch: after a crash or
 * an aborted connection, MariaDB frees a prepared branch only once it notices that the session
 * ended. Gives up, rethrowing, after {@value #WAIT_MILLIS} ms.
 */
final class Detached {

  /** How long to wait for the database to notice that a session holding a branch ended. */
  static final long WAIT_MILLIS = 5_000;

  private Detached() {}

  /** A step that may find the branch still attached. */
  @FunctionalInterface
  interface Step {
    Resolution run() throws SQLException;
  }

  static Resolution retry(Step step) throws SQLException {
    long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
    long pause = 10;
    while (true) {
      try {
        return step.run();
      } catch (BranchStillAttachedException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        try {
          Thread.sleep(pause);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        pause = Math.min(pause * 2, 500);
      }
    }
  }
}
