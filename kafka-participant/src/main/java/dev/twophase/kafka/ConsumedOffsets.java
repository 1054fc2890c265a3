package dev.twophase.kafka;

import dev.twophase.annotation.PublicEvolving;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
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
 * thread-safe), or, made {@link #of(Supplier) from a supplier of group metadata}, the thread that
 * processes the records; the participant reads it in {@code preCommit}, which runs on that thread
 * at a record boundary.
 */
@PublicEvolving
public final class ConsumedOffsets {

  private final Supplier<ConsumerGroupMetadata> groupMetadata;
  private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();

  private ConsumedOffsets(Supplier<ConsumerGroupMetadata> groupMetadata) {
    this.groupMetadata = groupMetadata;
  }

  /** The offsets of input consumed by {@code consumer}, committed to its group. */
  public static ConsumedOffsets of(Consumer<?, ?> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return new ConsumedOffsets(consumer::groupMetadata);
  }

  /**
   * The offsets of input consumed by a consumer that another thread polls: {@code groupMetadata}
   * gives that consumer's group metadata as of its last poll, without calling the consumer (a
   * Kafka consumer refuses calls from a second thread while one is under way). The poller must
   * keep it up to date after every poll, and no checkpoint may run while the consumer is
   * rebalancing ({@code dev.twophase.kafka.group.GroupRunner} does both).
   */
  public static ConsumedOffsets of(Supplier<ConsumerGroupMetadata> groupMetadata) {
    return new ConsumedOffsets(Objects.requireNonNull(groupMetadata, "groupMetadata"));
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
    return groupMetadata.get();
  }
}
