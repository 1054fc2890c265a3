package dev.twophase.kafka;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.annotation.PublicEvolving;

/**
 * The {@code kafka-clients} on the class path lacks what resuming a pre-committed transaction in a
 * new process needs (its producer's transaction manager changed). Thrown when a Kafka participant
 * is built, before any transaction, so that an upgrade of the client fails at start-up instead of
 * when a crash has to be recovered. The message names the client version found and the member
 * that is missing; the remedy is to use the {@code kafka-clients} version this release of
 * twophase was built and tested with (see {@code docs/kafka-participant.md}).
 */
@PublicEvolving
public final class IncompatibleKafkaClientException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public IncompatibleKafkaClientException(String message, Throwable cause) {
    super(message, cause);
  }
}
