package dev.twophase.kafka.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The hand-written baseline of the Kafka participant's benchmark: one transactional
 * {@code KafkaProducer} doing the same durable work per checkpoint as the participant under a
 * coordinator, serially: {@code send} each record; at a checkpoint {@code flush()} (every send
 * acknowledged), append a decision record of {@value #DECISION_BYTES} bytes to a log file and
 * {@code force(false)} it (the coordinator's synced decision), {@code commitTransaction()}, and
 * {@code beginTransaction()} for the next. Not thread-safe; one instance per thread.
 */
public final class RawTransactionalProducerLoop implements AutoCloseable {

  /** Size of the stand-in for the coordinator's decision record. */
  public static final int DECISION_BYTES = 300;

  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final FileChannel decisions;
  private final ByteBuffer decision = ByteBuffer.allocateDirect(DECISION_BYTES);
  private long records;
  private long checkpoints;

  /**
   * @param bootstrapServers the broker
   * @param transactionalId the producer's id (one per loop)
   * @param topic where the records go
   * @param decisionLog the decision log file (created)
   */
  public RawTransactionalProducerLoop(String bootstrapServers, String transactionalId, String topic, Path decisionLog)
      throws IOException {
    this.topic = topic;
    Files.createDirectories(decisionLog.toAbsolutePath().getParent());
    this.decisions = FileChannel.open(decisionLog, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    KafkaProducer<byte[], byte[]> p = null;
    try {
      p = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
          ProducerConfig.LINGER_MS_CONFIG, 5),
          new ByteArraySerializer(), new ByteArraySerializer());
      p.initTransactions();
      p.beginTransaction();
    } catch (RuntimeException | Error e) {
      if (p != null) {
        p.close(Duration.ZERO);
      }
      decisions.close();
      throw e;
    }
    this.producer = p;
  }

  /** Sends one record into the current transaction. */
  public void write(byte[] value) {
    producer.send(new ProducerRecord<>(topic, value));
    records++;
  }

  /** Flush, synced decision record, commit, begin the next transaction. */
  public void checkpoint() throws IOException {
    producer.flush();
    decision.clear();
    while (decision.hasRemaining()) {
      decision.put((byte) ('0' + (checkpoints % 10)));
    }
    decision.flip();
    while (decision.hasRemaining()) {
      decisions.write(decision);
    }
    decisions.force(false);
    producer.commitTransaction();
    producer.beginTransaction();
    checkpoints++;
  }

  public long records() {
    return records;
  }

  @Override
  public void close() throws IOException {
    try {
      producer.abortTransaction();
    } catch (RuntimeException ignored) {
      // closing anyway
    } finally {
      producer.close(Duration.ofSeconds(10));
      decisions.close();
    }
  }
}
