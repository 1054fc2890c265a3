package dev.twophase.internal.log;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.TwoPhaseException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * Whether a log may still be used: it is open, and no write or sync has failed. After a failed
 * write or sync the outcome of the appends involved is unknown; the log turns unusable, every later
 * append fails fast, and only closing and reopening it recovers. A failed sync is never retried.
 */
final class LogHealth {

  private static final Logger LOG = SegmentedLog.LOG;

  private final Path directory;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Throwable failure;

  LogHealth(Path directory) {
    this.directory = directory;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Marks the log closed; returns false if it was closed already. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  /** The first failure of a write or sync, or null. */
  Throwable failure() {
    return failure;
  }

  /** Marks the log unusable; the first failure is the one reported. */
  synchronized void recordFailure(Throwable e) {
    if (failure == null) {
      failure = e;
    }
  }

  void checkOpen() {
    if (closed.get()) {
      throw new FencedException(
          "state log " + directory + " is closed: this owner released it; open it again");
    }
  }

  void checkWritable(CoordinatorEntry entry, long checkpointId) {
    if (closed.get()) {
      throw new FencedException(
          "state log " + directory + " is closed: this owner released it"
              + (entry == null ? "" : ", so coordinator '" + entry.coordinatorId()
                  + "' cannot append checkpoint " + checkpointId),
          null, checkpointId, null);
    }
    Throwable failed = failure;
    if (failed != null) {
      throw new FatalTwoPhaseException(
          "state log " + directory + " is unusable after an earlier I/O failure, after which the"
              + " outcome of an append is unknown: close it and reopen it to recover",
          failed, checkpointId, null);
    }
  }

  /** Marks the log unusable after a failed write or force and returns the error to throw. */
  TwoPhaseException fail(
      IOException e, CoordinatorEntry entry, long checkpointId, String operation) {
    recordFailure(e);
    LOG.error("State log {}: {} failed; the log is now unusable", directory, operation, e);
    return unknownOutcome(entry, checkpointId, operation, e);
  }

  TwoPhaseException unknownOutcome(
      CoordinatorEntry entry, long checkpointId, String operation, Throwable cause) {
    String what = entry == null ? "the operation" : "the append of checkpoint " + checkpointId
        + " of coordinator '" + entry.coordinatorId() + "'";
    return new FatalTwoPhaseException(
        "state log " + directory + ": " + operation + " failed (" + cause + "), so the outcome of "
            + what + " is unknown: it may or may not be durable. The log is unusable; close it"
            + " and reopen it to recover",
        cause, checkpointId, null);
  }
}
