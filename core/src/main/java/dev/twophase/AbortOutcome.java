package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * What a participant found when asked to abort a handle from a new process
 * ({@link Participant#recoverAndAbort}). Reporting it, rather than aborting blindly, is what lets the
 * coordinator notice a state log that lost a decision: a transaction recovery means to abort that
 * the resource shows committed.
 */
@PublicEvolving
public enum AbortOutcome {
  /** The transaction was in progress or prepared, and this call rolled it back. */
  ABORTED,
  /**
   * Nothing to roll back: the resource never saw the transaction, or it is already rolled back or
   * expired. The usual answer after a crash before the transaction's first write.
   */
  NOT_FOUND,
  /**
   * The resource shows the transaction <em>committed</em> (its final file exists, its marker row
   * is visible). Recovery aborts only transactions of undecided checkpoints, which can never have
   * been committed, so this proves that the state log lost a later decision; the transaction was
   * left as it is. The coordinator stops with a {@link DecisionLostException} unless the operator
   * opted in to carry on.
   */
  COMMITTED
}
