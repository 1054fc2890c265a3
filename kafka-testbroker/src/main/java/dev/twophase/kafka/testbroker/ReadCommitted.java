package dev.twophase.kafka.testbroker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * An independent check of what a topic holds for its readers: reads a whole topic as a {@code
 * read_committed} consumer (no consumer group, nothing committed) from the beginning, as a
 * downstream application would, with string keys and values.
 *
 * <p>{@link #values} and {@link #records} read up to the end of the log, which a {@code
 * read_committed} consumer reaches only once no transaction is left open on the topic (its end,
 * the last stable offset, stops at the first open one); they fail if one stays open.
 * {@link #visibleNow} reads what is visible at this moment, open transactions or not.
 */
public final class ReadCommitted {

  private ReadCommitted() {}

  /** Every committed value of {@code topic}, per partition in offset order, partitions in order. */
  public static List<String> values(String bootstrapServers, String topic, Duration timeout) {
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<String, String> r : records(bootstrapServers, topic, timeout)) {
      out.add(r.value());
    }
    return out;
  }

  /**
   * Every committed record of {@code topic}.
   *
   * @throws IllegalStateException if the end offsets are not reached in time: a transaction is
   *     still open on the topic (the message says where the consumer stopped)
   */
  public static List<ConsumerRecord<String, String>> records(String bootstrapServers, String topic, Duration timeout) {
    try (KafkaConsumer<String, String> consumer = readCommittedConsumer(bootstrapServers)) {
      List<TopicPartition> partitions = assignFromBeginning(consumer, topic, timeout);
      // With read_committed, endOffsets is the last stable offset: an open transaction holds it.
      // A commit returns once the coordinator decided it; its markers reach the partitions just
      // after, so give the offsets a moment to meet.
      long deadline = System.nanoTime() + timeout.toNanos();
      Map<TopicPartition, Long> lso = consumer.endOffsets(partitions, timeout);
      Map<TopicPartition, Long> logEnd = logEndOffsets(bootstrapServers, partitions, timeout);
      while (!lso.equals(logEnd)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("a transaction is still open on " + topic + " after " + timeout
              + ": last stable offsets " + lso + ", log end offsets " + logEnd);
        }
        sleep(100);
        lso = consumer.endOffsets(partitions, timeout);
        logEnd = logEndOffsets(bootstrapServers, partitions, timeout);
      }
      Map<TopicPartition, List<ConsumerRecord<String, String>>> byPartition = partitions.stream()
          .collect(Collectors.toMap(p -> p, p -> new ArrayList<>()));
      while (!done(consumer, lso)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("did not reach the end offsets " + lso + " of " + topic + " within " + timeout);
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          byPartition.get(new TopicPartition(r.topic(), r.partition())).add(r);
        }
      }
      List<ConsumerRecord<String, String>> all = new ArrayList<>();
      for (TopicPartition p : partitions) {
        all.addAll(byPartition.get(p));
      }
      return all;
    }
  }

  /**
   * What a {@code read_committed} consumer of {@code topic} sees now: the committed records below
   * the last stable offset, per partition in offset order, partitions in order. Open transactions
   * are allowed (their records and everything after them are not visible yet).
   */
  public static List<String> visibleNow(String bootstrapServers, String topic, Duration timeout) {
    try (KafkaConsumer<String, String> consumer = readCommittedConsumer(bootstrapServers)) {
      List<TopicPartition> partitions = assignFromBeginning(consumer, topic, timeout);
      Map<TopicPartition, Long> lso = consumer.endOffsets(partitions, timeout);
      Map<TopicPartition, List<String>> byPartition = partitions.stream()
          .collect(Collectors.toMap(p -> p, p -> new ArrayList<>()));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done(consumer, lso)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("did not reach the last stable offsets " + lso + " of " + topic);
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.offset() < lso.get(new TopicPartition(r.topic(), r.partition()))) {
            byPartition.get(new TopicPartition(r.topic(), r.partition())).add(r.value());
          }
        }
      }
      List<String> all = new ArrayList<>();
      partitions.forEach(p -> all.addAll(byPartition.get(p)));
      return all;
    }
  }

  /** A {@code read_committed} consumer of strings, in no group, committing nothing. */
  private static KafkaConsumer<String, String> readCommittedConsumer(String bootstrapServers) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
  }

  /** Assigns every partition of {@code topic}, in order, at its beginning; returns them. */
  private static List<TopicPartition> assignFromBeginning(
      KafkaConsumer<?, ?> consumer, String topic, Duration timeout) {
    List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
        .map(p -> new TopicPartition(topic, p.partition()))
        .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
        .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return partitions;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static boolean done(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    Set<TopicPartition> assigned = consumer.assignment();
    for (TopicPartition p : assigned) {
      if (consumer.position(p) < end.get(p)) {
        return false;
      }
    }
    return true;
  }

  private static Map<TopicPartition, Long> logEndOffsets(
      String bootstrapServers, List<TopicPartition> partitions, Duration timeout) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      return consumer.endOffsets(partitions, timeout);
    }
  }
}
