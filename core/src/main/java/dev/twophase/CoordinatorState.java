package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.EnumSet;
import java.util.Set;

/**
 * The life cycle of a coordinator, with its legal transitions. Any other transition is refused with
 * an {@link IllegalStateTransitionException}.
 *
 * <pre>
 *   RECOVERING ──► RUNNING ──► FINISHED
 *        │            │            │
 *        └────────────┴──► FAILED ◄┘
 *   every state ──► CLOSED
 * </pre>
 */
@PublicEvolving
public enum CoordinatorState {
  /** Reading the log, committing and aborting what it holds. No writes yet. */
  RECOVERING,
  /** Transactions are open; the application writes and checkpoints. */
  RUNNING,
  /**
   * {@code finish()} was called: no writes, no new transactions; checkpoints and commits of what is
   * pending still happen.
   */
  FINISHED,
  /**
   * A fatal error (lost transaction, log failure, fencing) stopped the coordinator. Only {@code
   * close()} is allowed; a new coordinator recovers from the log.
   */
  FAILED,
  /** Closed; nothing is allowed. */
  CLOSED;

  private Set<CoordinatorState> next;

  static {
    RECOVERING.next = EnumSet.of(RUNNING, FAILED, CLOSED);
    RUNNING.next = EnumSet.of(FINISHED, FAILED, CLOSED);
    FINISHED.next = EnumSet.of(FAILED, CLOSED);
    FAILED.next = EnumSet.of(CLOSED);
    CLOSED.next = EnumSet.noneOf(CoordinatorState.class);
  }

  /** Whether a coordinator in this state may move to {@code target}. */
  public boolean canTransitionTo(CoordinatorState target) {
    return next.contains(target);
  }

  /** Whether records may be written. */
  public boolean acceptsWrites() {
    return this == RUNNING;
  }
}
