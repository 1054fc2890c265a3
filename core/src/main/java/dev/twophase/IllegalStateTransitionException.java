package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * An operation was called in a state that does not allow it: a write after {@code finish()}, a
 * checkpoint on a closed coordinator. Carries both states so the message says what happened.
 */
@PublicEvolving
public class IllegalStateTransitionException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final CoordinatorState from;
  private final CoordinatorState to;

  public IllegalStateTransitionException(CoordinatorState from, CoordinatorState to, String what) {
    super(what + " is not allowed in state " + from + (to == null ? "" : " (no transition to " + to + ")"));
    this.from = from;
    this.to = to;
  }

  public CoordinatorState from() {
    return from;
  }

  /** The state the operation would have entered; null if the operation is not a transition. */
  public CoordinatorState to() {
    return to;
  }
}
