package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * A participant cannot tell whether a transaction of a decided checkpoint committed, and asking
 * again will not tell either: the resource no longer holds what would say (a Kafka transactional
 * id that moved on to a later producer epoch, or that the broker forgot). Distinct from
 * {@link RetriableTwoPhaseException} (the answer may come later: retry) and from
 * {@link CommitOutcome#LOST} (the resource says it is gone).
 *
 * <p>Nothing is guessed: the coordinator stops (a recovery that meets it fails), and so does a
 * Flink job, without restarting, since every restore would meet it again. An operator looks at the
 * resource (the message names the handle and what the resource showed) and decides; the front-end
 * documents how to go on once they have.
 */
@PublicEvolving
public class CommitOutcomeUnknownException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }

  public CommitOutcomeUnknownException(String message, Throwable cause, long checkpointId, String participant) {
    super(message, cause, checkpointId, participant);
  }
}
