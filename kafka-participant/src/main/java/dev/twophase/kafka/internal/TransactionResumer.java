package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Reads the state of a producer's pre-committed transaction, and puts that state into a fresh
 * producer of the same transactional id in another process so that its {@code commitTransaction()}
 * (or {@code abortTransaction()}) finishes the transaction. No public Kafka client API does this
 * yet; today's implementation is {@link ReflectiveTransactionResumer}. When KIP-939's two-phase
 * commit producer API is public and enabled on brokers, an implementation on
 * {@code prepareTransaction()} / {@code initTransactions(true)} replaces it behind this interface.
 *
 * <p>Implementations are stateless and thread-safe; a producer is used by one thread at a time.
 */
@Internal
public interface TransactionResumer {

  /**
   * The state of {@code producer}'s current transaction. Call it after {@code flush()} (every send
   * acknowledged) and before the commit, on the thread that uses the producer.
   */
  ProducerState capture(KafkaProducer<?, ?> producer);

  /**
   * Makes {@code fresh}, a new transactional producer on the transaction's transactional id on
   * which {@code initTransactions()} was <em>not</em> called (that would abort the transaction),
   * the owner of the transaction {@code state} describes: its next {@code commitTransaction()}
   * commits it. Only for a started transaction ({@link ProducerState#started()}).
   */
  void resume(KafkaProducer<?, ?> fresh, ProducerState state);
}
