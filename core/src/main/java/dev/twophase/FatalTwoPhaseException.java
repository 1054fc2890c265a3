package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * A failure that retrying will not fix: the coordinator stops. Close it and start a new one, which
 * recovers from the state log; if the cause is named in the message (a corrupt log, a lost
 * transaction), an operator must act first.
 */
@PublicEvolving
public class FatalTwoPhaseException extends TwoPhaseException {

  private static final long serialVersionUID = 1L;

  public FatalTwoPhaseException(String message) {
    super(message);
  }

  public FatalTwoPhaseException(String message, Throwable cause) {
    super(message, cause);
  }

  public FatalTwoPhaseException(
      String message, Throwable cause, long checkpointId, String participant) {
    super(message, cause, checkpointId, participant);
  }
}
