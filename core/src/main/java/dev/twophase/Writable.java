package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * Optional capability of a {@link Participant}: it accepts records into its current transaction.
 * Participants that expose their resource through the participant instead (a JDBC connection bound
 * to the current transaction, say) do not need it; the application then reads the current handle
 * with {@code currentTransaction(participant)} and asks the participant for the resource.
 *
 * <p>Records reach the participant through an {@link Output} obtained from the coordinator, on the
 * application's thread. Per record, the coordinator calls the {@link RecordWriter} of the current
 * transaction directly: it adds no allocation, no lock and no look-up.
 *
 * @param <IN>  record type
 * @param <TXN> the participant's transaction handle
 */
@PublicEvolving
public interface Writable<IN, TXN> {

  /**
   * The writer of {@code transaction}'s records. Called once per transaction, on the application
   * thread, right after {@link Participant#beginTransaction} returned it; the coordinator sends the
   * transaction's records to the writer until it pre-commits or aborts the transaction. Keep the
   * transaction's live state (buffers, open files) in the writer or behind it, not in the handle.
   */
  RecordWriter<IN> writerFor(TXN transaction) throws Exception;
}
