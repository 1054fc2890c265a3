package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transactional {@link KafkaProducer} of a pool id, with the first asynchronous send error of
 * its current transaction. The producer's I/O thread and sockets live from {@link #open} to
 * {@link #close}; every path that gives up a producer closes it.
 *
 * <p>Threads: used by one thread at a time (the application thread while its transaction is open,
 * then the committer thread); the hand-over happens through the participant's concurrent maps,
 * which publish it. The send callback runs on the producer's I/O thread.
 */
@Internal
public final class TransactionalProducer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionalProducer.class);

  private final String transactionalId;
  private final KafkaProducer<byte[], byte[]> producer;
  private final TransactionResumer resumer;
  private final AtomicReference<Exception> sendError = new AtomicReference<>();
  private final Callback onAck = (metadata, e) -> {
    if (e != null) {
      sendError.compareAndSet(null, e);
    }
  };
  private boolean closed;

  private TransactionalProducer(String transactionalId, KafkaProducer<byte[], byte[]> producer, TransactionResumer resumer) {
    this.transactionalId = transactionalId;
    this.producer = producer;
    this.resumer = resumer;
  }

  /** A new producer for {@code transactionalId}; {@code initTransactions()} not called yet. */
  public static TransactionalProducer open(ProducerSettings settings, String transactionalId, TransactionResumer resumer) {
    Map<String, Object> config = settings.forTransactionalId(transactionalId);
    return new TransactionalProducer(transactionalId,
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer()), resumer);
  }

  public String transactionalId() {
    return transactionalId;
  }

  /**
   * {@code initTransactions()}: registers the producer with the broker, which fences every older
   * producer of the id and aborts the transaction it left open, if any.
   */
  public void init() {
    producer.initTransactions();
  }

  /** {@code beginTransaction()}, and the producer id and epoch the transaction will run under. */
  public ProducerState begin() {
    sendError.set(null);
    producer.beginTransaction();
    return resumer.capture(producer);
  }

  /** Sends a record into the current transaction; a failure shows at {@link #flush()}. */
  public void send(ProducerRecord<byte[], byte[]> record) {
    // The Future is not needed: a failure reaches onAck, which flush() reports.
    Future<RecordMetadata> unused = producer.send(record, onAck);
  }

  /** Attaches consumed offsets to the current transaction (KIP-447). */
  public void sendOffsets(
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets,
      org.apache.kafka.clients.consumer.ConsumerGroupMetadata group) {
    producer.sendOffsetsToTransaction(offsets, group);
  }

  /**
   * Waits until every send of the current transaction is acknowledged ({@code acks=all}), then
   * returns the transaction's state for its handle.
   *
   * @throws Exception the first send that failed: the transaction can only be aborted
   */
  public ProducerState flush() throws Exception {
    producer.flush();
    Exception failed = sendError.get();
    if (failed != null) {
      throw failed;
    }
    return resumer.capture(producer);
  }

  /** The producer id, epoch and flags of the current transaction, without flushing. */
  public ProducerState state() {
    return resumer.capture(producer);
  }

  /** Makes this producer, on which {@link #init()} was not called, the owner of {@code state}'s transaction. */
  public void resume(ProducerState state) {
    resumer.resume(producer, state);
  }

  public void commit() {
    producer.commitTransaction();
  }

  public void abort() {
    producer.abortTransaction();
  }

  /**
   * Closes the producer. With a positive {@code timeout} it waits that long for its I/O thread, and
   * the producer aborts a transaction it has open; with {@link Duration#ZERO} it closes at once and
   * leaves an open or pre-committed transaction to the broker (a later commit from its handle, the
   * id's next {@code initTransactions()}, or the broker's timeout), as a crash would. Idempotent; a
   * failure to close is logged, an {@code Error} propagates.
   */
  public void close(Duration timeout) {
    if (closed) {
      return;
    }
    closed = true;
    try {
      producer.close(timeout);
    } catch (RuntimeException e) {
      LOG.warn("closing the producer of transactional id {} failed", transactionalId, e);
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }
}
