package dev.twophase.benchmarks.kafka;

import dev.twophase.FaultInjector;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The hand-written baseline of the Kafka participant's benchmark: one transactional
 * {@code KafkaProducer} doing the same durable work per checkpoint as the participant under a
 * coordinator, serially: {@code send} each record; at a checkpoint {@code flush()} (every send
 * acknowledged), append a decision record of {@value #DECISION_BYTES} bytes to a log file and
 * {@code force(false)} it (the coordinator's synced decision), {@code commitTransaction()}, and
 * {@code beginTransaction()} for the next. With two producers (two transactional ids) the loop
 * alternates them per checkpoint, as the participant's id pool does: the next transaction's first
 * send then does not wait for the broker to finish the previous commit's markers on the same id
 * ({@code CONCURRENT_TRANSACTIONS} and a retry). Not thread-safe; one instance per thread.
 */
public final class RawTransactionalProducerLoop implements AutoCloseable {

  /** Size of the stand-in for the coordinator's decision record. */
  public static final int DECISION_BYTES = 300;

  private final KafkaProducer<byte[], byte[]>[] producers;
  private KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final FileChannel decisions;
  private final ByteBuffer decision = ByteBuffer.allocateDirect(DECISION_BYTES);
  private long records;
  private long checkpoints;
  private FaultInjector points = FaultInjector.none();

  /**
   * @param bootstrapServers the broker
   * @param transactionalId the producer's id (one per loop)
   * @param topic where the records go
   * @param decisionLog the decision log file (created)
   */
  public RawTransactionalProducerLoop(String bootstrapServers, String transactionalId, String topic, Path decisionLog)
      throws IOException {
    this(bootstrapServers, transactionalId, topic, decisionLog, 1);
  }

  /**
   * @param bootstrapServers the broker
   * @param transactionalId the producers' ids start with it
   * @param topic where the records go
   * @param decisionLog the decision log file (created)
   * @param producerCount 1: one producer; 2: two, alternating per checkpoint
   */
  @SuppressWarnings("unchecked")
  public RawTransactionalProducerLoop(
      String bootstrapServers, String transactionalId, String topic, Path decisionLog, int producerCount)
      throws IOException {
    this.topic = topic;
    Files.createDirectories(decisionLog.toAbsolutePath().getParent());
    this.decisions = FileChannel.open(decisionLog, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
    this.producers = new KafkaProducer[producerCount];
    try {
      for (int i = 0; i < producerCount; i++) {
        producers[i] = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId + "-" + i,
            ProducerConfig.LINGER_MS_CONFIG, 5),
            new ByteArraySerializer(), new ByteArraySerializer());
        producers[i].initTransactions();
      }
      producer = producers[0];
      producer.beginTransaction();
    } catch (RuntimeException | Error e) {
      for (KafkaProducer<byte[], byte[]> p : producers) {
        if (p != null) {
          p.close(Duration.ZERO);
        }
      }
      decisions.close();
      throw e;
    }
  }

  /** Sends one record into the current transaction. */
  public void write(byte[] value) {
    // The Future is not needed: commitTransaction() fails if a send of the transaction did.
    Future<RecordMetadata> unused = producer.send(new ProducerRecord<>(topic, value));
    records++;
  }

  /**
   * Where {@link #checkpoint()} reports its steps, for a {@code PhaseTimer}: {@code raw.afterFlush},
   * {@code raw.afterDecision}, {@code raw.afterCommit}, {@code raw.afterBegin}.
   */
  public void timeWith(FaultInjector points) {
    this.points = points;
  }

  /** Flush, synced decision record, commit, begin the next transaction. */
  public void checkpoint() throws IOException {
    producer.flush();
    points.reached("raw.afterFlush");
    decision.clear();
    while (decision.hasRemaining()) {
      decision.put((byte) ('0' + (checkpoints % 10)));
    }
    decision.flip();
    while (decision.hasRemaining()) {
      decisions.write(decision);
    }
    decisions.force(false);
    points.reached("raw.afterDecision");
    producer.commitTransaction();
    points.reached("raw.afterCommit");
    checkpoints++;
    producer = producers[(int) (checkpoints % producers.length)];
    producer.beginTransaction();
    points.reached("raw.afterBegin");
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
      for (KafkaProducer<byte[], byte[]> p : producers) {
        p.close(Duration.ofSeconds(10));
      }
      decisions.close();
    }
  }
}
