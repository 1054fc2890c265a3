package dev.twophase.kafka.internal.statelog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Test hooks that damage what a Kafka state log topic holds, as a faulty disk, a foreign writer
 * or an operator might: they append records (Kafka cannot change one in place) that a later open
 * must report. Outside the production paths.
 */
public final class StateLogDamage {

  private StateLogDamage() {}

  /**
   * Appends a copy of the last state record of {@code coordinatorId} with one payload byte
   * flipped and the checksum left as it was.
   */
  public static void flipLastStateByte(String bootstrap, String topic, int partitions,
      String coordinatorId) throws Exception {
    ConsumerRecord<byte[], byte[]> last = lastRecord(bootstrap, topic, partitions, coordinatorId,
        RecordKind.STATE.keyPrefix() + "/");
    if (last == null) {
      throw new IllegalStateException("no state record of '" + coordinatorId + "' in " + topic);
    }
    byte[] value = last.value().clone();
    value[Frame.HEADER_BYTES - 1 + Math.min(1, value.length - Frame.OVERHEAD)] ^= 0x5a;
    produce(bootstrap, topic, last.partition(), last.key(), value);
  }

  /**
   * Appends a well-formed state chunk 0 of {@code count} (> 1) for {@code coordinatorId} under
   * an epoch far above the others, whose other chunks never come: an incomplete last state.
   */
  public static void appendOrphanChunk(String bootstrap, String topic, int partitions,
      String logId, String coordinatorId, int count) throws Exception {
    byte[] key = RecordKey.state(coordinatorId, 0).bytes();
    byte[] value = new Frame(RecordKind.STATE, logId, 1_000_000, 99, 1, 0, count, new byte[] {1, 2})
        .encode(key);
    produce(bootstrap, topic, RecordKey.partitionOf(coordinatorId, partitions), key, value);
  }

  /** Appends a well-formed owner record of {@code coordinatorId}, as a log would. */
  public static void appendOwnerRecord(String bootstrap, String topic, int partitions,
      String logId, String coordinatorId, String holder) throws Exception {
    byte[] key = RecordKey.owner(coordinatorId).bytes();
    byte[] value = new Frame(RecordKind.OWNER, logId, 1, 0, 0, 0, 1,
        OwnerRecord.payload(holder, false)).encode(key);
    produce(bootstrap, topic, RecordKey.partitionOf(coordinatorId, partitions), key, value);
  }

  private static void produce(String bootstrap, String topic, int partition, byte[] key,
      byte[] value) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * 1024 * 1024),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      p.send(new ProducerRecord<>(topic, partition, key, value)).get(30, TimeUnit.SECONDS);
    }
  }

  private static ConsumerRecord<byte[], byte[]> lastRecord(String bootstrap, String topic,
      int partitions, String coordinatorId, String keyPrefix) {
    TopicPartition tp = new TopicPartition(topic, RecordKey.partitionOf(coordinatorId, partitions));
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          RecordKey k = RecordKey.parse(r.key());
          if (k != null && coordinatorId.equals(k.coordinatorId())
              && new String(r.key(), java.nio.charset.StandardCharsets.UTF_8).startsWith(keyPrefix)) {
            found.add(r);
          }
        }
      }
      return found.isEmpty() ? null : found.get(found.size() - 1);
    }
  }
}
