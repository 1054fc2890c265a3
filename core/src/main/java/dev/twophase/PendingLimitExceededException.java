package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * A checkpoint was not taken because {@link CoordinatorConfig#maxPendingCheckpoints()} decided
 * checkpoints are still waiting for their commits and the configured policy is
 * {@link CoordinatorConfig.WhenPendingFull#FAIL}. Nothing was pre-committed or aborted: the current
 * transactions stay open and keep taking records; take the checkpoint again once commits caught up
 * (or raise the limit, or choose {@link CoordinatorConfig.WhenPendingFull#BLOCK}).
 */
@PublicEvolving
public class PendingLimitExceededException extends RetriableTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public PendingLimitExceededException(String message, long checkpointId) {
    super(message, null, checkpointId, null);
  }
}
