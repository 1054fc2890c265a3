package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/** A failure that may go away when the same operation is tried again (a broker or database away). */
@PublicEvolving
public class RetriableTwoPhaseException extends TwoPhaseException {

  private static final long serialVersionUID = 1L;

  public RetriableTwoPhaseException(String message, Throwable cause) {
    super(message, cause);
  }

  public RetriableTwoPhaseException(
      String message, Throwable cause, long checkpointId, String participant) {
    super(message, cause, checkpointId, participant);
  }
}
