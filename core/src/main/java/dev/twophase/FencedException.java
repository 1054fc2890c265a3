package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * Another owner has taken over: a newer incarnation of this coordinator, or another process on the
 * same state log. This instance is a zombie; it must stop writing and close. Participants throw it
 * when their resource rejects a stale epoch (Kafka's {@code ProducerFencedException}, say).
 */
@PublicEvolving
public class FencedException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public FencedException(String message) {
    super(message);
  }

  public FencedException(String message, Throwable cause) {
    super(message, cause);
  }

  public FencedException(String message, Throwable cause, long checkpointId, String participant) {
    super(message, cause, checkpointId, participant);
  }
}
