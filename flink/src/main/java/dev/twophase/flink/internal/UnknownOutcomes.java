package dev.twophase.flink.internal;

import dev.twophase.CommitOutcomeUnknownException;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sink does when a participant cannot tell whether a decided transaction committed
 * ({@link CommitOutcomeUnknownException}), wherever it meets one: in the committer, or in a
 * restored writer that commits its lineage's pending handles. The engine decides whether to go on
 * ({@code continueAfterUnknownCommitOutcome}); when it does not, the job fails without restarting
 * ({@link SuppressRestartsException}), because every restore of the checkpoint would ask the same
 * question and get no answer until the restart strategy gives up, and the message says how to
 * decide and how to go on.
 */
final class UnknownOutcomes {

  private static final Logger LOG = LoggerFactory.getLogger(UnknownOutcomes.class);

  private UnknownOutcomes() {}

  /**
   * The exception to fail with: a {@link SuppressRestartsException} around a
   * {@link CommitOutcomeUnknownException} that says what to do.
   */
  static RuntimeException failure(SinkSpec spec, String participant, Object handle, long checkpointId,
      CommitOutcomeUnknownException cause) {
    CommitOutcomeUnknownException e = new CommitOutcomeUnknownException("sink " + spec.sinkId() + ": participant '"
        + participant + "' cannot tell whether transaction " + handle + " of checkpoint ~" + checkpointId
        + " committed, and asking again cannot tell either (" + cause.getMessage() + "). The job fails without "
        + "restarting: every restore of this checkpoint would ask again. Decide from the resource whether its "
        + "records are there. If they are (or their loss is acceptable), restart the job from its latest retained "
        + "checkpoint with the sink built with continueAfterUnknownCommitOutcome(), which logs this transaction "
        + "at ERROR and goes on; if they are missing, restore a savepoint or checkpoint taken before checkpoint ~"
        + checkpointId + " to write them again", cause, checkpointId, participant);
    LOG.error("{}", e.getMessage());
    return new SuppressRestartsException(e);
  }
}
