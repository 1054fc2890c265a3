package dev.twophase.kafka;

import dev.twophase.annotation.PublicEvolving;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once consume-transform-produce (KIP-447) when Kafka is the only participant: the
 * positions after the input records the application has processed, which the Kafka participant
 * commits to the consumer group inside each transaction
 * ({@code sendOffsetsToTransaction(offsets, consumer.groupMetadata())}), so that the input offsets
 * become visible exactly when the output does. A zombie whose consumer group generation is stale
 * (its partitions were given to another instance) cannot commit: its checkpoint fails with a
 * {@link dev.twophase.FencedException}.
 *
 * <p>Use: consume with {@code isolation.level=read_committed} and {@code enable.auto.commit=false},
 * only after the coordinator is built (recovery commits pending transactions, and so their
 * offsets); after writing the outputs of a consumed record, call {@link #processed}. Give the
 * instance to {@code KafkaParticipant.Builder.consumedOffsets}. After a failed checkpoint, seek
 * the consumer back to its group's committed offsets ({@code consumer.committed(assignment)}) and
 * clear this with {@link #forget}.
 *
 * <p>Threads: the application thread only, the consumer's thread (Kafka consumers are not
 * thread-safe); the participant reads it in {@code preCommit}, which runs on that thread at a
 * record boundary.
 */
@PublicEvolving
public final class ConsumedOffsets {

  private final Consumer<?, ?> consumer;
  private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();

  private ConsumedOffsets(Consumer<?, ?> consumer) {
    this.consumer = Objects.requireNonNull(consumer, "consumer");
  }

  /** The offsets of input consumed by {@code consumer}, committed to its group. */
  public static ConsumedOffsets of(Consumer<?, ?> consumer) {
    return new ConsumedOffsets(consumer);
  }

  /** The application wrote the outputs of {@code record}: its offset + 1 goes into the next commit. */
  public void processed(ConsumerRecord<?, ?> record) {
    processed(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
  }

  /** The next offset to consume from {@code partition} is {@code nextOffset}. */
  public void processed(TopicPartition partition, long nextOffset) {
    if (nextOffset < 0) {
      throw new IllegalArgumentException("negative offset " + nextOffset + " for " + partition);
    }
    next.put(partition, new OffsetAndMetadata(nextOffset));
  }

  /** Forgets the positions of {@code partitions} (revoked, or to be re-read after a failed checkpoint). */
  public void forget(Iterable<TopicPartition> partitions) {
    for (TopicPartition p : partitions) {
      next.remove(p);
    }
  }

  /** The positions to commit with the current transaction; a copy. */
  public Map<TopicPartition, OffsetAndMetadata> offsets() {
    return Map.copyOf(next);
  }

  /** The consumer's group metadata now (generation and member id), which fences zombies. */
  public ConsumerGroupMetadata groupMetadata() {
    return consumer.groupMetadata();
  }
}
