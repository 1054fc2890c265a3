package dev.twophase.testing;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;

/**
 * Handle of an {@link InMemoryParticipant} transaction: the name the coordinator gave it ({@link
 * dev.twophase.TransactionContext#transactionName()}) is all a new process needs to finish it.
 *
 * @param name the transaction's name in the {@link InMemoryResource}
 * @param begunAtMillis when the transaction was begun, by the participant's clock (informational)
 */
@PublicEvolving
public record InMemoryTransaction(String name, long begunAtMillis) {

  public InMemoryTransaction {
    Objects.requireNonNull(name, "name");
  }
}
