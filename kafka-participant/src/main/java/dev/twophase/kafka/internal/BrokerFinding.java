package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;

/**
 * What the broker's transaction coordinator shows about one transaction of a transactional id, as
 * {@link BrokerTransactionView} reads it.
 *
 * @param outcome what became of the transaction
 * @param atTransactionEpoch whether the broker shows the id at the transaction's own producer
 *     epoch (not one the broker bumped to, or a later transaction's)
 * @param evidence the broker's description it was read from, for messages
 */
@Internal
public record BrokerFinding(Outcome outcome, boolean atTransactionEpoch, String evidence) {

  /** What became of the transaction. */
  public enum Outcome {
    /** The broker committed it. */
    COMMITTED,
    /** The broker aborted it: its producer aborted it, or the broker expired it. */
    ABORTED,
    /** It is still open, or the broker is writing its commit or abort markers right now. */
    IN_PROGRESS,
    /**
     * The id now carries something else (a later producer epoch or id, or no transaction at all),
     * or the broker no longer knows the id: what became of this transaction cannot be read.
     */
    UNKNOWN
  }
}
