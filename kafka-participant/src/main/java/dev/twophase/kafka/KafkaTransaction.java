package dev.twophase.kafka;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;

/**
 * The handle of one Kafka transaction, as the coordinator logs it: an immutable value, equal by
 * value, enough to finish the transaction from a new process.
 *
 * @param name the coordinator's name of the transaction ({@code TransactionContext#transactionName()}),
 *     for messages and bookkeeping; the broker never sees it
 * @param transactionalId the pool id the transaction runs under, which carries the owner epoch of
 *     the incarnation that began it; a later incarnation finishes the transaction on this id
 * @param producerId the producer id the broker knows the transaction by
 * @param epoch the producer epoch of the transaction; with {@code producerId} it names exactly one
 *     transaction of the id (the participant sees to that, see {@code docs/kafka-participant.md})
 * @param transactionV2 whether the transaction runs under transaction version 2: its commit must be
 *     sent as such, or a repeated commit is refused
 * @param started whether a record or offset was sent in it, so that the broker knows it; a
 *     transaction that was never started has nothing to commit or abort. The handle of an open
 *     transaction, logged before its pre-commit, says {@code false} whatever it later sent.
 */
@PublicEvolving
public record KafkaTransaction(
    String name, String transactionalId, long producerId, short epoch, boolean transactionV2, boolean started) {

  public KafkaTransaction {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(transactionalId, "transactionalId");
  }

  @Override
  public String toString() {
    return "KafkaTransaction[" + name + " on " + transactionalId + ", producerId=" + producerId + ", epoch=" + epoch
        + (transactionV2 ? ", TV2" : ", TV1") + (started ? "" : ", not started") + "]";
  }
}
