package dev.twophase.internal;

import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.IllegalStateTransitionException;
import dev.twophase.TwoPhaseException;
import org.slf4j.Logger;

/**
 * A coordinator's life-cycle state and the failure that stopped it, shared by the application
 * thread, the committer thread and whoever reads {@code state()}. Transitions are atomic; listeners
 * hear of them after the lock is released, so a slow or re-entrant listener blocks nobody.
 */
final class Lifecycle {

  private final String coordinatorId;
  private final CoordinatorListener listener;
  private final Logger log;

  private volatile CoordinatorState state = CoordinatorState.RECOVERING;
  private volatile TwoPhaseException failure;

  Lifecycle(String coordinatorId, CoordinatorListener listener, Logger log) {
    this.coordinatorId = coordinatorId;
    this.listener = listener;
    this.log = log;
  }

  CoordinatorState state() {
    return state;
  }

  /** The failure that stopped the coordinator, or null. */
  TwoPhaseException failure() {
    return failure;
  }

  /** Moves to {@code to}, or throws if the transition is illegal. */
  void transition(CoordinatorState to) {
    CoordinatorState from;
    synchronized (this) {
      from = state;
      if (!from.canTransitionTo(to)) {
        throw new IllegalStateTransitionException(from, to, "moving to " + to);
      }
      state = to;
    }
    log.debug("coordinator {}: {} -> {}", coordinatorId, from, to);
    listener.onStateTransition(coordinatorId, from, to);
  }

  /** Moves to {@code to} if that is legal now; returns whether it did. */
  boolean transitionIfPossible(CoordinatorState to) {
    CoordinatorState from;
    synchronized (this) {
      from = state;
      if (!from.canTransitionTo(to)) {
        return false;
      }
      state = to;
    }
    log.debug("coordinator {}: {} -> {}", coordinatorId, from, to);
    listener.onStateTransition(coordinatorId, from, to);
    return true;
  }

  /**
   * Records {@code cause} as the failure (the first one wins) and moves to FAILED if the state
   * allows it. Returns whether this call moved the coordinator to FAILED.
   */
  boolean fail(TwoPhaseException cause) {
    synchronized (this) {
      if (failure == null) {
        failure = cause;
      }
    }
    if (transitionIfPossible(CoordinatorState.FAILED)) {
      log.error("coordinator {} failed; close it and start a new one to recover", coordinatorId, cause);
      return true;
    }
    return false;
  }

  /** Throws the failure that stopped the coordinator, or if it is not in one of {@code allowed}. */
  void ensure(String operation, CoordinatorState... allowed) {
    TwoPhaseException f = failure;
    if (f != null) {
      throw new FatalTwoPhaseException(
          operation + " refused: coordinator '" + coordinatorId + "' failed: " + f.getMessage(),
          f,
          f.checkpointId().orElse(-1),
          f.participant().orElse(null));
    }
    CoordinatorState s = state;
    for (CoordinatorState a : allowed) {
      if (s == a) {
        return;
      }
    }
    throw new IllegalStateTransitionException(s, null, operation + " on coordinator '" + coordinatorId + "'");
  }
}
