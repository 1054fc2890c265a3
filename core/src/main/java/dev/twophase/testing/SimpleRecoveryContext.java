package dev.twophase.testing;

import dev.twophase.RecoveryContext;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A plain {@link RecoveryContext}, for tests that call a participant directly.
 *
 * @param <TXN> the handle type
 * @param <C> the user context type
 */
public record SimpleRecoveryContext<TXN, C>(
    String coordinatorId,
    String participantName,
    long ownerEpoch,
    List<TXN> handledTransactions,
    Optional<C> userContext,
    long lastCheckpointId)
    implements RecoveryContext<TXN, C> {

  public SimpleRecoveryContext {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(participantName, "participantName");
    handledTransactions = List.copyOf(handledTransactions);
    Objects.requireNonNull(userContext, "userContext (use Optional.empty())");
  }
}
