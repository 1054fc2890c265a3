package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * Takes the records of one transaction; see {@link Writable#writerFor}. Called on the application
 * thread only, and never after the transaction's pre-commit or abort began.
 *
 * @param <IN> record type
 */
@FunctionalInterface
@PublicEvolving
public interface RecordWriter<IN> {

  /**
   * Adds one record to the transaction. A record that cannot be written (it cannot be encoded, say)
   * must fail with an exception and leave the transaction as it was: the record is not part of it,
   * and the transaction can still be pre-committed. If a failure leaves the transaction damaged (an
   * I/O error in the middle of a record), refuse every later write and fail the pre-commit, so
   * that the checkpoint is aborted and the application replays.
   */
  void write(IN record) throws Exception;
}
