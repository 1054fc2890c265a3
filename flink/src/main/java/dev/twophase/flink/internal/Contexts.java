package dev.twophase.flink.internal;

import dev.twophase.ParticipantContext;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The sink's implementations of the SPI's context objects. The sink id stands for the coordinator
 * id and the lineage for the log id, so that {@link dev.twophase.TransactionNames} builds names the
 * way the coordinators do. Flink's committer may hold any number of decided checkpoints, so
 * {@code maxPendingCheckpoints} is 0 (unbounded).
 */
final class Contexts {

  private Contexts() {}

  /** Given to {@code initializeUserContext}. */
  record Participant(String coordinatorId, String participantName, String transactionNamePrefix, long ownerEpoch)
      implements ParticipantContext {}

  /** Given to {@code beginTransaction}. */
  record Transaction<C>(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      long checkpointId,
      long sequence,
      Optional<C> userContext) implements TransactionContext<C> {

    Transaction {
      Objects.requireNonNull(userContext, "userContext");
    }
  }

  /**
   * Given to {@code finishRecoveringContext}, once per lineage a writer recovers. Its
   * {@link #isOwnTransactionName} is the lineage's {@link RecoveryRule}: true only for the names
   * recovery must abort, never for those Flink's committer may still commit.
   */
  record Recovery<T, C>(
      String coordinatorId,
      String participantName,
      String transactionNamePrefix,
      long ownerEpoch,
      List<T> handledTransactions,
      Optional<C> userContext,
      long lastCheckpointId,
      RecoveryRule rule) implements RecoveryContext<T, C> {

    Recovery {
      handledTransactions = List.copyOf(handledTransactions);
      Objects.requireNonNull(userContext, "userContext");
    }

    @Override
    public boolean isOwnTransactionName(String name) {
      return rule.abortable(name);
    }
  }
}
