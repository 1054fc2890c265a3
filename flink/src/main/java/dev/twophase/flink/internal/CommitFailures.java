package dev.twophase.flink.internal;

import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.TransactionLostException;
import java.time.Duration;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sink does with a decided transaction that cannot be committed, wherever it meets one:
 * in the committer, or in a restored writer that commits its lineage's pending handles. Both ask
 * here, so that the rules and their messages are the same.
 *
 * <ul>
 *   <li><b>Lost</b> ({@code CommitOutcome.LOST}): a {@link TransactionLostException} naming the
 *       checkpoint, the handle and the likely cause; dropped with an ERROR instead only with
 *       {@code ignoreFailuresAfterTransactionTimeout} and a transaction older than its timeout.
 *   <li><b>Outcome unknown</b> ({@link CommitOutcomeUnknownException}): the job fails without
 *       restarting ({@link SuppressRestartsException}), because every restore of the checkpoint
 *       would ask the same question and get no answer, until the restart strategy gives up;
 *       the message says how to decide and how to go on. With
 *       {@code continueAfterUnknownCommitOutcome} it is logged at ERROR and taken as done.
 * </ul>
 */
final class CommitFailures {

  private static final Logger LOG = LoggerFactory.getLogger(CommitFailures.class);

  private CommitFailures() {}

  /**
   * The exception to fail with for a transaction its participant reported {@code LOST}, or null
   * if it may be dropped (then logged at ERROR).
   *
   * @param timeout the participant's transaction timeout, or null
   * @param subtask the writer subtask that pre-committed it
   */
  static TransactionLostException lost(SinkSpec spec, String participant, Duration timeout, Object handle,
      long begunAtMillis, long checkpointId, int subtask) {
    Duration age = Duration.ofMillis(Math.max(0, System.currentTimeMillis() - begunAtMillis));
    if (spec.ignoreFailuresAfterTimeout() && timeout != null && age.compareTo(timeout) >= 0) {
      LOG.error("sink {}: transaction {} of checkpoint ~{} in participant '{}' can no longer be committed and is "
              + "older than its timeout ({} ms >= {} ms); ignoring it as configured. Data loss might have "
              + "occurred.", spec.sinkId(), handle, checkpointId, participant, age.toMillis(), timeout.toMillis());
      return null;
    }
    String why = timeout == null
        ? "No transaction timeout applies to it (age " + age.toMillis() + " ms), so it did not expire: the "
            + "participant's pre-commit or commit was probably not durable, or the resource was changed by hand"
        : age.compareTo(timeout) < 0
            ? "It is younger than its timeout (age " + age.toMillis() + " ms, timeout " + timeout.toMillis()
                + " ms): the participant's pre-commit or commit was probably not durable, or the resource was "
                + "changed by hand"
            : "It is older than its timeout (age " + age.toMillis() + " ms, timeout " + timeout.toMillis()
                + " ms): the resource probably expired it. Raise the resource's transaction timeout or checkpoint "
                + "more often; to drop such transactions instead, build the sink with "
                + "ignoreFailuresAfterTransactionTimeout()";
    TransactionLostException e = new TransactionLostException("sink " + spec.sinkId() + ": transaction " + handle
        + " of checkpoint ~" + checkpointId + " (writer subtask " + subtask + ") can no longer be committed "
        + "in participant '" + participant + "': its records are missing there while other participants may show "
        + "theirs. " + why, checkpointId, participant);
    LOG.error("{}", e.getMessage());
    return e;
  }

  /**
   * The exception to fail with when {@code participant} cannot tell whether {@code handle}
   * committed, or null if the sink goes on (then logged at ERROR): a
   * {@link SuppressRestartsException} around a {@link CommitOutcomeUnknownException} that says
   * what to do.
   */
  static RuntimeException unknownOutcome(SinkSpec spec, String participant, Object handle, long checkpointId,
      CommitOutcomeUnknownException cause) {
    if (spec.continueAfterUnknownCommitOutcome()) {
      LOG.error("sink {}: participant '{}' cannot tell whether transaction {} of checkpoint ~{} committed; taking "
          + "it as done as configured (continueAfterUnknownCommitOutcome): if it did not commit, its records are "
          + "missing there while other participants may show theirs. {}", spec.sinkId(), participant, handle,
          checkpointId, cause.getMessage());
      return null;
    }
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
