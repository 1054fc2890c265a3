package dev.twophase.kafka;

import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.annotation.PublicEvolving;

/**
 * Every transactional id of a Kafka participant's pool is held by a transaction in flight (the
 * current one and those decided but not yet committed and retired), and none came free within the
 * participant's wait. Nothing is lost: the transaction is not begun. Retriable: ids come free as
 * the committer retires committed transactions, so a later attempt (a new build, the next
 * checkpoint after a restart) may find one. The message names the pool, its size, the ids and their
 * holders, and the setting to raise.
 */
@PublicEvolving
public final class TransactionalIdPoolExhaustedException extends RetriableTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public TransactionalIdPoolExhaustedException(String message) {
    super(message, null);
  }
}
