package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * Where the application writes records for one {@link Writable} participant. An output always
 * writes into the participant's <em>current</em> transaction: after a checkpoint the same output
 * writes into the next one. Use it only from the coordinator's application thread (the thread that
 * first writes or checkpoints).
 *
 * @param <IN> record type
 */
@PublicEvolving
public interface Output<IN> {

  /**
   * Writes a record into the current transaction.
   *
   * @throws NullPointerException if {@code record} is null
   * @throws IllegalStateException after {@code finish()} or {@code close()}, or when called from
   *     another thread than the coordinator's application thread
   * @throws FatalTwoPhaseException once the coordinator has failed; its cause is the failure
   * @throws TwoPhaseException if the participant could not write the record; its message says
   *     whether the transaction is still usable (a record that cannot be encoded, say) or can now
   *     only be aborted (an I/O error), in which case the next checkpoint fails and the application
   *     replays from the last decided one
   */
  void write(IN record);
}
