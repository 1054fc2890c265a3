package dev.twophase;

/**
 * Where the application writes records for one {@link Writable} participant. An output always
 * writes into the participant's <em>current</em> transaction: after a checkpoint the same output
 * writes into the next one. Use it only from the coordinator's application thread.
 *
 * @param <IN> record type
 */
public interface Output<IN> {

  /**
   * Writes a record into the current transaction.
   *
   * @throws NullPointerException if {@code record} is null
   * @throws IllegalStateException after {@code finish()} or {@code close()}, or once the coordinator
   *     has failed
   * @throws TwoPhaseException if the participant rejects the record; the transaction stays
   *     abortable and the record is not in it
   */
  void write(IN record);
}
