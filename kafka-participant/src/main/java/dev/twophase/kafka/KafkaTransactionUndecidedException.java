package dev.twophase.kafka;

import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.PublicEvolving;

/**
 * The broker's answer does not tell whether a transaction committed: it is still being ended, or
 * its transactional id now shows something else (a later producer epoch, no transaction, an id the
 * broker has forgotten after {@code transactional.id.expiration.ms}). The participant never guesses;
 * from {@code commit} the coordinator retries, and at start-up recovery stops (build again). The
 * message names the participant, the handle, what the broker showed and what to check.
 */
@PublicEvolving
public final class KafkaTransactionUndecidedException extends TwoPhaseException {

  private static final long serialVersionUID = 1L;

  public KafkaTransactionUndecidedException(String message, Throwable cause) {
    super(message, cause);
  }
}
