package dev.twophase.demo;

import dev.twophase.kafka.ConsumedOffsets;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The fourth sink: the Kafka topic {@value #TOPIC}, one JSON order per record, written through the
 * Kafka participant. Each checkpoint's records are one Kafka producer transaction, flushed when the
 * checkpoint is taken and committed after the coordinator's decision; after a crash, the next JVM
 * commits the decided transactions from their handles and aborts whatever else the crashed one left
 * open. {@code read_committed} readers see each checkpoint's records once it is committed.
 */
final class TopicSink {

  static final String TOPIC = "orders-out";
  /** The prefix of the participant's transactional ids. */
  static final String TRANSACTIONAL_ID_PREFIX = "demo";

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private TopicSink() {}

  /** The participant: values to {@value #TOPIC}, no key. */
  static KafkaParticipant<Orders.Order> participant(String bootstrapServers) {
    return builder(bootstrapServers).build();
  }

  /**
   * The participant of a group worker's task: as {@link #participant(String)}, committing the
   * task's input offsets with each transaction (KIP-447).
   */
  static KafkaParticipant<Orders.Order> participant(String bootstrapServers, ConsumedOffsets offsets) {
    return builder(bootstrapServers).consumedOffsets(offsets).build();
  }

  private static KafkaParticipant.Builder<Orders.Order> builder(String bootstrapServers) {
    Serializer<Orders.Order> json = (topic, order) -> Orders.json(order).getBytes(StandardCharsets.UTF_8);
    return KafkaParticipant.<Orders.Order>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            // Throughput: fewer, larger requests (a checkpoint's records are flushed at its end anyway).
            ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
            ProducerConfig.LINGER_MS_CONFIG, 20))
        .records(RecordMapper.toTopic(TOPIC, json))
        .transactionalIdPrefix(TRANSACTIONAL_ID_PREFIX);
  }

  /** What the topic holds now: records visible to read_committed readers, transactions still open. */
  record State(long visible, long open) {
    String describe() {
      return visible + " records visible to read_committed readers, " + (open == 0 ? "no open transactions"
          : open + " open transaction" + (open == 1 ? "" : "s") + " (records written, invisible)");
    }
  }

  static State state(String bootstrapServers) {
    long open = openTransactions(bootstrapServers);
    return new State(ReadCommitted.visibleNow(bootstrapServers, TOPIC, TIMEOUT).size(), open);
  }

  /**
   * Reads the whole topic as a {@code read_committed} consumer: each input record once, as the
   * JSON the job wrote; transactions still open count as left unfinished (and while one is, only the
   * records before it are visible).
   */
  static SinkCheck check(String bootstrapServers, long n) {
    long open = openTransactions(bootstrapServers);
    List<String> values = open == 0
        ? ReadCommitted.values(bootstrapServers, TOPIC, TIMEOUT)
        : ReadCommitted.visibleNow(bootstrapServers, TOPIC, TIMEOUT);
    SinkCheck.Tally tally = new SinkCheck.Tally(n);
    for (String value : values) {
      FileSinks.recordJson(tally, "value", value);
    }
    return tally.result(DemoJob.TOPIC, "Kafka topic " + TOPIC + ", read_committed", open, "open transactions");
  }

  /** Transactions the broker has not completed (committed or aborted) yet. */
  static long openTransactions(String bootstrapServers) {
    try (Admin admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis()))) {
      return admin.listTransactions(new ListTransactionsOptions().filterStates(List.of(
              TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
              TransactionState.PREPARE_EPOCH_FENCE)))
          .all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot list the broker's transactions: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing the broker's transactions", e);
    }
  }
}
