package dev.twophase.kafka;

import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.annotation.PublicEvolving;

/**
 * The broker is still ending a transaction ({@code PrepareCommit}, {@code PrepareAbort}, or open at
 * its epoch after a commit that failed), so its outcome cannot be read yet: retry. The coordinator
 * retries a commit that throws it, and a recovery that meets it fails (build again); a Flink
 * committer retries it. Where the answer can never come (the id moved on, or the broker forgot
 * it), the participant throws {@link dev.twophase.CommitOutcomeUnknownException} instead. The
 * message names the participant, the handle and what the broker showed.
 */
@PublicEvolving
public final class KafkaTransactionUndecidedException extends RetriableTwoPhaseException {

  private static final long serialVersionUID = 1L;

  public KafkaTransactionUndecidedException(String message, Throwable cause) {
    super(message, cause);
  }
}
