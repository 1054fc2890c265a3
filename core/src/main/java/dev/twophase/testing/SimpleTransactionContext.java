package dev.twophase.testing;

import dev.twophase.TransactionContext;
import dev.twophase.internal.Contexts;
import java.util.Objects;
import java.util.Optional;

/**
 * A plain {@link TransactionContext}, for tests that call a participant directly. Its {@link
 * #transactionName()} is the coordinator's, from the interface's default method.
 *
 * @param <C> the participant's user context
 */
public record SimpleTransactionContext<C>(
    String coordinatorId,
    String participantName,
    long ownerEpoch,
    long checkpointId,
    long sequence,
    Optional<C> userContext)
    implements TransactionContext<C> {

  public SimpleTransactionContext {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(participantName, "participantName");
    Objects.requireNonNull(userContext, "userContext (use Optional.empty())");
  }

  /** The name {@link TransactionContext#transactionName()} documents, for these values. */
  public static String transactionName(
      String coordinatorId, String participantName, long epoch, long sequence) {
    return transactionNamePrefix(coordinatorId, participantName) + epoch + "-" + sequence;
  }

  /** See {@link dev.twophase.ParticipantContext#transactionNamePrefix()}. */
  public static String transactionNamePrefix(String coordinatorId, String participantName) {
    return Contexts.namePrefix(coordinatorId, participantName);
  }
}
