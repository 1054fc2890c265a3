package dev.twophase.testkit;

import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.internal.Contexts;
import java.util.List;
import java.util.Optional;

/**
 * Contexts for calling a {@link dev.twophase.Participant} directly, without a coordinator: what
 * the conformance suite passes, and what a participant's own unit tests can use. The returned
 * values are records (equal when their fields are).
 */
public final class TestContexts {

  private TestContexts() {}

  /**
   * A transaction context. Its {@link TransactionContext#transactionName()} is exactly the one the
   * coordinator makes for these values (see {@link dev.twophase.ParticipantContext#transactionNamePrefix()}).
   *
   * @param userContext the participant's context, or null for none
   */
  public static <C> TransactionContext<C> transaction(
      String coordinatorId,
      String participantName,
      long epoch,
      long checkpointId,
      long sequence,
      C userContext) {
    return new Contexts.Transaction<>(
        coordinatorId, participantName, epoch, checkpointId, sequence, Optional.ofNullable(userContext));
  }

  /**
   * A recovery context, as passed to {@code finishRecoveringContext}.
   *
   * @param handled the handles committed or aborted during this recovery, in order
   * @param userContext the participant's context, or null for none
   * @param lastCheckpointId the last decided checkpoint, 0 if none
   */
  public static <TXN, C> RecoveryContext<TXN, C> recovery(
      String coordinatorId,
      String participantName,
      long epoch,
      List<TXN> handled,
      C userContext,
      long lastCheckpointId) {
    return new Contexts.Recovery<>(
        coordinatorId, participantName, epoch, handled, Optional.ofNullable(userContext), lastCheckpointId);
  }

  /** A participant context, as passed to {@code initializeUserContext}. */
  public static ParticipantContext participant(
      String coordinatorId, String participantName, long epoch) {
    return new Contexts.Participant(coordinatorId, participantName, epoch);
  }

  /** The documented transaction name; see {@link #transaction}. */
  public static String transactionName(
      String coordinatorId, String participantName, long epoch, long sequence) {
    return Contexts.namePrefix(coordinatorId, participantName) + epoch + '-' + sequence;
  }
}
