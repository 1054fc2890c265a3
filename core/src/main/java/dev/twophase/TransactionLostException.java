package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * A transaction of a decided checkpoint can no longer be committed: its participant reported
 * {@link CommitOutcome#LOST}. Its records are missing from that participant while other
 * participants may show them. Raised unless {@code ignoreFailuresAfterTransactionTimeout} is on and
 * the transaction is older than its timeout. Raise the resource's transaction timeout (or checkpoint
 * more often) so that decided transactions are committed before the resource expires them.
 */
@PublicEvolving
public class TransactionLostException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public TransactionLostException(String message, long checkpointId, String participant) {
    super(message, null, checkpointId, participant);
  }
}
