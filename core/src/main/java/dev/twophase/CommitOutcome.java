package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * What a participant found when asked to commit a handle. Reporting this, rather than guessing, is
 * what lets the coordinator tell a harmless repeat from data loss.
 */
@PublicEvolving
public enum CommitOutcome {
  /** This call made the transaction visible. */
  COMMITTED,
  /**
   * The resource shows the transaction committed earlier (e.g. the final file exists, the xid is
   * no longer prepared but its marker row is there). A repeat after a crash; nothing to do.
   */
  ALREADY_COMMITTED,
  /**
   * The transaction can no longer be committed: the resource expired or aborted it. The
   * coordinator reports this as an error with the checkpoint id and handle, unless the user opted
   * in to {@code ignoreFailuresAfterTransactionTimeout} and the transaction is older than the
   * timeout, in which case it is logged at ERROR and dropped.
   */
  LOST
}
