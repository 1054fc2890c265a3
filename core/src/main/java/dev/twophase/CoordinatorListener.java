package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.time.Duration;

/**
 * Hook for metrics and logging. Every method has an empty default, so implement only what you
 * need. Called synchronously from the coordinator's threads (the application thread for
 * checkpoints, the committer thread for commits): keep it fast. An exception thrown by a listener
 * is logged and otherwise ignored; it never changes the protocol's outcome.
 */
@PublicEvolving
public interface CoordinatorListener {

  /** Pre-commits of checkpoint {@code checkpointId} are about to start. */
  default void onCheckpointStarted(String coordinatorId, long checkpointId) {}

  /** The decision for the checkpoint is durable; commits follow. */
  default void onCheckpointDecided(String coordinatorId, long checkpointId, Duration took) {}

  /** Every participant committed the checkpoint. {@code sinceDecided} spans the commit phase. */
  default void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {}

  /**
   * The checkpoint was not decided. For a {@link CheckpointFailedException} its transactions were
   * aborted in every participant; for a fatal cause (the decision's outcome unknown, new
   * transactions could not be begun) the coordinator stopped and recovery settles them.
   */
  default void onCheckpointFailed(String coordinatorId, long checkpointId, Throwable cause) {}

  /**
   * A checkpoint waited {@code waited} for the pending limit
   * ({@link CoordinatorConfig#maxPendingCheckpoints()}) before it could start: commits fall behind.
   */
  default void onCheckpointDelayed(String coordinatorId, long checkpointId, Duration waited) {}

  /** A commit attempt failed and will be retried after {@code backoff}. */
  default void onCommitRetried(CommitRetry retry) {}

  /**
   * Start-up recovery finished a handle; also reported, with {@link RecoveryAction.Kind#LOST_IGNORED},
   * when a running coordinator drops a lost transaction older than its timeout.
   */
  default void onRecoveryHandled(RecoveryAction action) {}

  /** A transaction reached the warning ratio of its timeout at commit or recovery. */
  default void onTransactionTimeoutWarning(TimeoutWarning warning) {}

  /** The coordinator moved between states. */
  default void onStateTransition(String coordinatorId, CoordinatorState from, CoordinatorState to) {}

  /** A failed commit attempt. {@code handle} is the handle's {@code toString()}. */
  record CommitRetry(
      String coordinatorId,
      long checkpointId,
      String participant,
      String handle,
      int attempt,
      Duration backoff,
      Throwable cause) {}

  /** What recovery did with one handle. */
  record RecoveryAction(
      String coordinatorId, long checkpointId, String participant, String handle, Kind kind) {

    /** The kinds of recovery action. */
    public enum Kind {
      /** {@code recoverAndCommit} made it visible. */
      COMMITTED,
      /** {@code recoverAndCommit} found it committed before the crash. */
      ALREADY_COMMITTED,
      /** {@code recoverAndAbort} rolled back a transaction open at the last decision. */
      ABORTED,
      /** {@code recoverAndAbort} found nothing to roll back (the transaction never wrote). */
      NOTHING_TO_ABORT,
      /**
       * {@code recoverAndAbort} found the transaction committed: the log lost a decision, and the
       * operator chose to carry on ({@code continueAfterLostDecision}); logged at ERROR.
       */
      FOUND_COMMITTED,
      /** Lost, older than its timeout, dropped because the user opted in; logged at ERROR. */
      LOST_IGNORED
    }
  }

  /** A transaction close to its timeout. */
  record TimeoutWarning(
      String coordinatorId,
      long checkpointId,
      String participant,
      String handle,
      Duration age,
      Duration timeout) {}
}
