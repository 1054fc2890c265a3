package dev.twophase.testing;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.TransactionNames;
import dev.twophase.internal.engine.Contexts;
import java.util.List;
import java.util.Optional;

/**
 * Contexts for calling a {@link dev.twophase.Participant} directly, without a coordinator: what the
 * testkit's conformance suite passes, and what a participant's own unit tests can use. Names follow
 * the coordinator's scheme ({@link TransactionNames}) exactly. The returned values are records
 * (equal when their fields are).
 */
@PublicEvolving
public final class TestContexts {

  /** The log id the short factory methods use. */
  public static final String LOG_ID = "testlog0";

  private TestContexts() {}

  /** A transaction context on log {@link #LOG_ID} without a user context. */
  public static <C> TransactionContext<C> transaction(
      String coordinatorId, String participantName, long epoch, long checkpointId, long sequence) {
    return transaction(coordinatorId, participantName, LOG_ID, epoch, checkpointId, sequence, null);
  }

  /**
   * A transaction context. Its {@link TransactionContext#transactionName()} is exactly the one the
   * coordinator makes for these values.
   *
   * @param userContext the participant's context, or null for none
   */
  public static <C> TransactionContext<C> transaction(
      String coordinatorId, String participantName, String logId, long epoch, long checkpointId,
      long sequence, C userContext) {
    return new Contexts.Transaction<>(context(coordinatorId, participantName, logId, epoch, false), checkpointId, sequence,
        Optional.ofNullable(userContext));
  }

  /** A recovery context on log {@link #LOG_ID} without a user context. */
  public static <TXN, C> RecoveryContext<TXN, C> recovery(
      String coordinatorId, String participantName, long epoch, List<TXN> handled, long lastCheckpointId) {
    return recovery(coordinatorId, participantName, LOG_ID, epoch, handled, null, lastCheckpointId);
  }

  /**
   * A recovery context, as passed to {@code finishRecoveringContext}.
   *
   * @param handled the handles committed or aborted during this recovery, in order
   * @param userContext the participant's context, or null for none
   * @param lastCheckpointId the last decided checkpoint, 0 if none
   */
  public static <TXN, C> RecoveryContext<TXN, C> recovery(
      String coordinatorId, String participantName, String logId, long epoch, List<TXN> handled,
      C userContext, long lastCheckpointId) {
    return recovery(coordinatorId, participantName, logId, epoch, false, handled, userContext, lastCheckpointId);
  }

  /**
   * A recovery context, as passed to {@code finishRecoveringContext}, of a coordinator on a shared
   * state log or not ({@link ParticipantContext#sharedLog()}).
   *
   * @param handled the handles committed or aborted during this recovery, in order
   * @param userContext the participant's context, or null for none
   * @param lastCheckpointId the last decided checkpoint, 0 if none
   */
  public static <TXN, C> RecoveryContext<TXN, C> recovery(
      String coordinatorId, String participantName, String logId, long epoch, boolean sharedLog,
      List<TXN> handled, C userContext, long lastCheckpointId) {
    return new Contexts.Recovery<>(context(coordinatorId, participantName, logId, epoch, sharedLog), handled,
        Optional.ofNullable(userContext), lastCheckpointId, null);
  }

  /** A participant context on log {@link #LOG_ID}, as passed to {@code initializeUserContext}. */
  public static ParticipantContext participant(String coordinatorId, String participantName, long epoch) {
    return participant(coordinatorId, participantName, LOG_ID, epoch);
  }

  /** A participant context, as passed to {@code initializeUserContext}. */
  public static ParticipantContext participant(
      String coordinatorId, String participantName, String logId, long epoch) {
    return context(coordinatorId, participantName, logId, epoch, false);
  }

  /**
   * A participant context, as passed to {@code initializeUserContext} and {@code startRecovery}, of
   * a coordinator on a shared state log or not ({@link ParticipantContext#sharedLog()}).
   */
  public static ParticipantContext participant(
      String coordinatorId, String participantName, String logId, long epoch, boolean sharedLog) {
    return context(coordinatorId, participantName, logId, epoch, sharedLog);
  }

  private static Contexts.Participant context(
      String coordinatorId, String participantName, String logId, long epoch, boolean sharedLog) {
    return new Contexts.Participant(coordinatorId, participantName,
        TransactionNames.prefix(coordinatorId, participantName, logId), epoch, sharedLog, 0, Optional.empty());
  }

  /** The name {@link #transaction} gives; see {@link TransactionNames}. */
  public static String transactionName(
      String coordinatorId, String participantName, String logId, long epoch, long sequence) {
    return TransactionNames.name(TransactionNames.prefix(coordinatorId, participantName, logId), epoch, sequence);
  }
}
