package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * A checkpoint could not be decided, usually because a participant's pre-commit failed. Every
 * participant's transaction of that checkpoint was aborted and new ones were begun (presumed
 * abort): <strong>the records written since the last decided checkpoint are gone</strong>, and the
 * application must replay its input from the position it stored in that checkpoint
 * ({@link #lastDecidedCheckpointId()}, and the application snapshot the coordinator returns for
 * it). The coordinator is usable again right away, except when the failed checkpoint was the
 * last one after {@code finish()}: no transaction can be begun then, so close the coordinator and
 * start a new one, which resumes from the last decided checkpoint.
 */
@PublicEvolving
public class CheckpointFailedException extends RetriableTwoPhaseException {

  private static final long serialVersionUID = 1L;

  private final long lastDecidedCheckpointId;

  public CheckpointFailedException(
      String message,
      Throwable cause,
      long checkpointId,
      String participant,
      long lastDecidedCheckpointId) {
    super(message, cause, checkpointId, participant);
    this.lastDecidedCheckpointId = lastDecidedCheckpointId;
  }

  /** The checkpoint whose application snapshot the input must be replayed from; 0 if none. */
  public long lastDecidedCheckpointId() {
    return lastDecidedCheckpointId;
  }
}
