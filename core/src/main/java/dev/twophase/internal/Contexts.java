package dev.twophase.internal;

import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The coordinator's implementations of the SPI's context objects. */
final class Contexts {

  private Contexts() {}

  /** A transaction context. */
  record Transaction<C>(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      int maxPendingCheckpoints,
      Optional<Duration> checkpointInterval,
      long checkpointId,
      long sequence,
      Optional<C> userContext)
      implements TransactionContext<C> {

    Transaction {
      Objects.requireNonNull(userContext, "userContext");
    }
  }

  /** A recovery context. */
  record Recovery<T, C>(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      int maxPendingCheckpoints,
      Optional<Duration> checkpointInterval,
      List<T> handledTransactions,
      Optional<C> userContext,
      long lastCheckpointId)
      implements RecoveryContext<T, C> {

    Recovery {
      handledTransactions = List.copyOf(handledTransactions);
      Objects.requireNonNull(userContext, "userContext");
    }
  }

  /** The context given to {@code initializeUserContext} and to retirement listeners. */
  record Participant(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      int maxPendingCheckpoints,
      Optional<Duration> checkpointInterval)
      implements ParticipantContext {}
}
