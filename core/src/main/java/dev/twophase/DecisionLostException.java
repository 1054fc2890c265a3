package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * The state log lost a decision: recovery was about to abort a transaction of a checkpoint it
 * believes undecided, and the participant's resource shows that transaction committed
 * ({@link AbortOutcome#COMMITTED}). Only a later decision, durable once and now missing (a damaged
 * or replaced log, a log restored from an old backup), can explain it. Carrying on would restore
 * the application to an older position and write the records since then a second time.
 *
 * <p>The coordinator stops before it restores the application or begins anything. What to do:
 * find out why the log lost its records (restore it from a backup, or check that the right log
 * directory is used with this output). If duplicates are acceptable, build the coordinator with
 * {@link CoordinatorConfig.Builder#continueAfterLostDecision()}: it then leaves the committed
 * transaction as it is, logs an ERROR, and resumes from the position the log holds.
 */
@PublicEvolving
public class DecisionLostException extends FatalTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public DecisionLostException(String message, long checkpointId, String participant) {
    super(message, null, checkpointId, participant);
  }
}
