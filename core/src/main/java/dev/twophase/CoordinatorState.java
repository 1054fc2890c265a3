package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
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

  /** The states each state may move to; an enum's constants share it, and none changes it. */
  private static final Map<CoordinatorState, Set<CoordinatorState>> NEXT = new EnumMap<>(Map.of(
      RECOVERING, EnumSet.of(RUNNING, FAILED, CLOSED),
      RUNNING, EnumSet.of(FINISHED, FAILED, CLOSED),
      FINISHED, EnumSet.of(FAILED, CLOSED),
      FAILED, EnumSet.of(CLOSED),
      CLOSED, EnumSet.noneOf(CoordinatorState.class)));

  /** Whether a coordinator in this state may move to {@code target}. */
  public boolean canTransitionTo(CoordinatorState target) {
    return NEXT.get(this).contains(target);
  }

  /** Whether records may be written. */
  public boolean acceptsWrites() {
    return this == RUNNING;
  }
}
