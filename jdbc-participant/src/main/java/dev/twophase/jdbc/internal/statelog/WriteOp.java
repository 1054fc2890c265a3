package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One write the writer does for a view, in the transaction of a batch: a state (the caller waits
 * for its outcome), a completion mark (nobody waits) or a release (the closing view waits).
 */
@Internal
final class WriteOp {

  enum Kind { STATE, COMPLETION, RELEASE }

  final Kind kind;
  final CoordinatorView view;
  final long checkpointId;
  final byte[] payload;
  final long checksum;
  /** The completion mark a COMPLETION or RELEASE writes; set by the writer, -1 for none. */
  long completion = -1;

  private final CountDownLatch done = new CountDownLatch(1);
  private final AtomicBoolean completed = new AtomicBoolean();
  private volatile RuntimeException failure;

  private WriteOp(Kind kind, CoordinatorView view, long checkpointId, byte[] payload,
      long checksum) {
    this.kind = kind;
    this.view = view;
    this.checkpointId = checkpointId;
    this.payload = payload;
    this.checksum = checksum;
  }

  static WriteOp state(CoordinatorView view, long checkpointId, byte[] payload) {
    return new WriteOp(Kind.STATE, view, checkpointId, payload,
        RowChecksum.of(view.coordinatorId(), checkpointId, view.ownerEpoch(), payload));
  }

  static WriteOp completion(CoordinatorView view) {
    return new WriteOp(Kind.COMPLETION, view, -1, null, 0);
  }

  static WriteOp release(CoordinatorView view) {
    return new WriteOp(Kind.RELEASE, view, -1, null, 0);
  }

  /** Reports success; nothing if the outcome was already reported. */
  void succeed() {
    if (completed.compareAndSet(false, true)) {
      done.countDown();
    }
  }

  /** Reports {@code e}; nothing if the outcome was already reported. */
  void fail(RuntimeException e) {
    if (completed.compareAndSet(false, true)) {
      failure = e;
      done.countDown();
    }
  }

  boolean isDone() {
    return completed.get();
  }

  /**
   * Waits for the outcome and throws the failure, if any. Uninterruptible: an interrupt cannot
   * make the outcome of a write that was sent any less unknown; the flag is kept.
   */
  void await() {
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
  }
}
