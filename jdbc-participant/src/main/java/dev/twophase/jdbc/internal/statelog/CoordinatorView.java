package dev.twophase.jdbc.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed coordinator of a {@link StateLogCore}: what the claim read, and its appends through
 * the log's writer. Thread-safe; appends are queued in the order they pass their checks.
 */
@Internal
final class CoordinatorView implements StateLog.CoordinatorLog {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);

  private enum Status { OPEN, FENCED, BROKEN, CLOSED }

  private final StateLogCore log;
  private final String coordinatorId;
  private final long epoch;
  private final StoredState lastState;
  private final long lastCompleted;

  private final Object lock = new Object();
  /** Guarded by {@link #lock}. */
  private Status status = Status.OPEN;
  /** Guarded by {@link #lock}. */
  private long lastAppended;
  /** Guarded by {@link #lock}: why the view is fenced or unusable. */
  private String reason;

  /** The highest mark asked for, the highest written, and whether a mark write is queued. */
  private final AtomicLong requestedCompletion;
  private final AtomicLong writtenCompletion;
  private final AtomicBoolean completionQueued = new AtomicBoolean();

  CoordinatorView(StateLogCore log, String coordinatorId, ClaimedRow claimed) {
    this.log = log;
    this.coordinatorId = coordinatorId;
    this.epoch = claimed.epoch();
    this.lastState = claimed.lastState();
    this.lastCompleted = claimed.completed();
    this.lastAppended = lastState == null ? 0 : lastState.checkpointId();
    this.requestedCompletion = new AtomicLong(claimed.completed());
    this.writtenCompletion = new AtomicLong(claimed.completed());
  }

  @Override
  public String coordinatorId() {
    return coordinatorId;
  }

  @Override
  public long ownerEpoch() {
    return epoch;
  }

  @Override
  public String logId() {
    return log.logId();
  }

  @Override
  public StoredState lastState() {
    return lastState;
  }

  @Override
  public long lastCompletedCheckpointId() {
    return lastCompleted;
  }

  @Override
  public void appendState(long checkpointId, byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    requireCheckpointId(checkpointId);
    if (payload.length > StateLog.MAX_STATE_BYTES) {
      throw new IllegalArgumentException("coordinator '" + coordinatorId + "': the state of "
          + "checkpoint " + checkpointId + " is " + payload.length + " bytes, more than "
          + "StateLog.MAX_STATE_BYTES (" + StateLog.MAX_STATE_BYTES + ")");
    }
    WriteOp op;
    synchronized (lock) {
      requireUsable(checkpointId);
      if (checkpointId < lastAppended) {
        throw new IllegalArgumentException("coordinator '" + coordinatorId + "': checkpoint "
            + checkpointId + " is lower than the last appended, " + lastAppended
            + "; checkpoint ids never decrease");
      }
      op = WriteOp.state(this, checkpointId, payload);
      if (!log.writer().submit(op)) {
        throw closed(checkpointId);
      }
      lastAppended = checkpointId;
    }
    op.await();
  }

  @Override
  public void appendCompletion(long checkpointId) {
    requireCheckpointId(checkpointId);
    synchronized (lock) {
      requireUsable(checkpointId);
    }
    requestedCompletion.accumulateAndGet(checkpointId, Math::max);
    if (checkpointId > writtenCompletion.get() && completionQueued.compareAndSet(false, true)
        && !log.writer().submit(WriteOp.completion(this))) {
      completionQueued.set(false);
      throw closed(checkpointId);
    }
  }

  private static void requireCheckpointId(long checkpointId) {
    if (checkpointId < 0) {
      throw new IllegalArgumentException("checkpointId must be >= 0, was " + checkpointId);
    }
  }

  private void requireUsable(long checkpointId) {
    switch (status) {
      case OPEN -> { }
      case FENCED -> throw new FencedException(reason, null, checkpointId, null);
      case BROKEN -> throw new FatalTwoPhaseException(reason, null, checkpointId, null);
      case CLOSED -> throw closed(checkpointId);
    }
  }

  private FencedException closed(long checkpointId) {
    return new FencedException("coordinator log '" + coordinatorId + "' on state log table "
        + log.tableName() + " is closed (or its log is): it cannot append checkpoint "
        + checkpointId + "; open the coordinator again", null, checkpointId, null);
  }

  /**
   * Why a state queued for this view must not be sent (the view was fenced or turned unusable
   * since), or null.
   */
  RuntimeException unusable(WriteOp op) {
    synchronized (lock) {
      return switch (status) {
        case FENCED -> new FencedException(reason, null, op.checkpointId, null);
        case BROKEN -> new FatalTwoPhaseException(reason, null, op.checkpointId, null);
        case OPEN, CLOSED -> null;
      };
    }
  }

  /** The writer found the coordinator claimed by another owner. */
  void fenced(String message) {
    synchronized (lock) {
      if (status == Status.OPEN || status == Status.BROKEN) {
        status = Status.FENCED;
        reason = message;
      }
    }
  }

  /** The writer lost the outcome of an append: the view appends no more. */
  void broken(String message) {
    synchronized (lock) {
      if (status == Status.OPEN) {
        status = Status.BROKEN;
        reason = message;
      }
    }
  }

  /**
   * The mark the writer is to write now, or -1 if none is higher than the written one. A mark
   * write (not a release) lets the next {@link #appendCompletion} queue another.
   */
  long takeCompletion(boolean release) {
    if (!release) {
      completionQueued.set(false);
    }
    long requested = requestedCompletion.get();
    return requested > writtenCompletion.get() ? requested : -1;
  }

  void completionWritten(long mark) {
    writtenCompletion.accumulateAndGet(mark, Math::max);
  }

  /** A mark's write failed; the next mark or the release writes it (marks only rise). */
  void completionLost(long mark) {
    LOG.debug("coordinator '{}': completion mark {} not written", coordinatorId, mark);
  }

  /**
   * Releases the coordinator in the table (holder NULL, epoch kept), after writing its last
   * completion mark, unless it is fenced. Never throws: a release that fails is logged.
   * Idempotent.
   */
  @Override
  public void close() {
    Status before;
    synchronized (lock) {
      before = status;
      if (before == Status.CLOSED) {
        return;
      }
      status = Status.CLOSED;
    }
    try {
      if (before == Status.FENCED) {
        return;
      }
      WriteOp release = WriteOp.release(this);
      if (!log.writer().submit(release)) {
        LOG.warn("Coordinator '{}' in state log table {} was not released: its log's writer "
            + "stopped. Its owner name stays in the table until this owner claims it again or "
            + "another owner takes it over", coordinatorId, log.tableName());
        return;
      }
      try {
        release.await();
      } catch (TwoPhaseException e) {
        LOG.warn("{}", e.getMessage(), e);
      }
    } finally {
      log.closed(this);
    }
  }

  @Override
  public String toString() {
    return "CoordinatorLog{'" + coordinatorId + "', epoch " + epoch + " on " + log.tableName()
        + "}";
  }
}
