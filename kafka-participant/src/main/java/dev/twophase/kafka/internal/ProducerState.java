package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;

/**
 * What a transactional producer's transaction manager holds about its current transaction that a
 * new process needs to finish it: the producer id and epoch the broker knows the transaction by,
 * whether the producer speaks transaction version 2 (its commit request must be of the same
 * version as the transaction's, or the broker answers {@code INVALID_TXN_STATE}), and whether the
 * transaction was started on the broker at all (an empty transaction never was, and a commit of it
 * must not reach the broker).
 */
@Internal
public record ProducerState(long producerId, short epoch, boolean transactionV2, boolean started) {

  @Override
  public String toString() {
    return "producerId=" + producerId + ", epoch=" + epoch + ", transactionV2=" + transactionV2
        + (started ? "" : ", empty");
  }
}
