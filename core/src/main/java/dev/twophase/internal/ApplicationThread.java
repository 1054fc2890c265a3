package dev.twophase.internal;

/**
 * The one thread that may write, checkpoint and finish: the first thread that does one of these
 * after the coordinator was built. A call from any other thread is refused before it changes
 * anything: a checkpoint taken on another thread while the application thread writes would
 * pre-commit a transaction that still takes records, and lose one.
 *
 * <p>The check on the per-record path is a read of the current thread and a compare.
 */
final class ApplicationThread {

  private final String coordinatorId;
  private volatile Thread owner;

  ApplicationThread(String coordinatorId) {
    this.coordinatorId = coordinatorId;
  }

  /** Refuses the call unless it comes from the application thread (binding it on first use). */
  void check(String operation) {
    Thread current = Thread.currentThread();
    if (current != owner) {
      bindOrRefuse(current, operation);
    }
  }

  private synchronized void bindOrRefuse(Thread current, String operation) {
    Thread bound = owner;
    if (bound == null) {
      owner = current;
      return;
    }
    if (bound != current) {
      throw new IllegalStateException(
          operation + " on coordinator '" + coordinatorId + "' called from thread '"
              + current.getName() + "', but its application thread is '" + bound.getName()
              + "': writes, checkpoints and finish() must all come from one thread (take "
              + "checkpoints in the writing loop, with maybeCheckpoint(), instead of from a timer "
              + "thread). Nothing was done.");
    }
  }
}
