package dev.twophase;

/**
 * Optional capability of a {@link Participant}: it accepts records into its current transaction.
 * Participants that expose their resource through the handle instead (a JDBC connection bound to
 * the transaction, say) do not need it; the application then reads the handle with
 * {@code currentTransaction(participant)}.
 *
 * <p>Records reach this method through an {@link Output} obtained from the coordinator, on the
 * application's thread. The coordinator adds no allocation and takes no lock on that path.
 *
 * @param <IN>  record type
 * @param <TXN> the participant's transaction handle
 */
public interface Writable<IN, TXN> {

  /**
   * Adds one record to {@code transaction}. A record that cannot be written (it cannot be encoded,
   * say) must fail with an exception and leave the transaction abortable; the record is not part
   * of the transaction.
   */
  void write(TXN transaction, IN record) throws Exception;
}
