package dev.twophase.internal.engine;

import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The implementations of the SPI's context objects, for every front-end and for
 * {@code dev.twophase.testing.TestContexts}. Records: equal when their fields are.
 */
@Internal
public final class Contexts {

  private Contexts() {}

  /** A context that extends a {@link Participant} context: what that one says, it says. */
  private interface OfParticipant extends ParticipantContext {

    Participant participant();

    @Override
    default String coordinatorId() {
      return participant().coordinatorId();
    }

    @Override
    default String participantName() {
      return participant().participantName();
    }

    @Override
    default String transactionNamePrefix() {
      return participant().transactionNamePrefix();
    }

    @Override
    default long ownerEpoch() {
      return participant().ownerEpoch();
    }

    @Override
    default boolean sharedLog() {
      return participant().sharedLog();
    }

    @Override
    default int maxPendingCheckpoints() {
      return participant().maxPendingCheckpoints();
    }

    @Override
    default Optional<Duration> checkpointInterval() {
      return participant().checkpointInterval();
    }
  }

  /** Given to {@code initializeUserContext}, {@code startRecovery} and retirement listeners. */
  public record Participant(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      boolean sharedLog,
      int maxPendingCheckpoints,
      Optional<Duration> checkpointInterval)
      implements ParticipantContext {

    public Participant {
      Objects.requireNonNull(coordinatorId, "coordinatorId");
      Objects.requireNonNull(participantName, "participantName");
      Objects.requireNonNull(transactionNamePrefix, "transactionNamePrefix");
      Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    }

    /** A context with the same coordinator, participant, epoch and settings, for another prefix. */
    public Participant withPrefix(String prefix) {
      return new Participant(coordinatorId, participantName, prefix, ownerEpoch, sharedLog, maxPendingCheckpoints,
          checkpointInterval);
    }
  }

  /** Given to {@code beginTransaction}. */
  public record Transaction<C>(
      Participant participant,
      long checkpointId,
      long sequence,
      Optional<C> userContext)
      implements TransactionContext<C>, OfParticipant {

    public Transaction {
      Objects.requireNonNull(participant, "participant");
      Objects.requireNonNull(userContext, "userContext");
    }
  }

  /**
   * Given to {@code finishRecoveringContext}. {@code ownNames} decides
   * {@link #isOwnTransactionName}: null for the SPI's rule (the naming scheme's, and on a shared
   * log no later epoch's); a front-end that must keep some of its own names (the Flink
   * adapter, whose committer may still commit them) gives a narrower one.
   */
  public record Recovery<T, C>(
      Participant participant,
      List<T> handledTransactions,
      Optional<C> userContext,
      long lastCheckpointId,
      Predicate<String> ownNames)
      implements RecoveryContext<T, C>, OfParticipant {

    public Recovery {
      Objects.requireNonNull(participant, "participant");
      handledTransactions = List.copyOf(handledTransactions);
      Objects.requireNonNull(userContext, "userContext");
    }

    @Override
    public boolean isOwnTransactionName(String name) {
      return ownNames == null ? OfParticipant.super.isOwnTransactionName(name) : ownNames.test(name);
    }
  }
}
