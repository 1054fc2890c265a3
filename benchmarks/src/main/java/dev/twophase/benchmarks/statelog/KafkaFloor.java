package dev.twophase.benchmarks.statelog;

import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import dev.twophase.benchmarks.statelog.TimedCrew.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The hand-written Kafka loop a Kafka state log is measured against: per thread a transactional
 * producer (its own transactional id, initialized before the clock starts); per append
 * {@code beginTransaction}, one record keyed by the coordinator id into the compacted topic,
 * {@code commitTransaction} (which returns once the record and the commit markers are written).
 */
final class KafkaFloor {

  private KafkaFloor() {}

  /**
   * @param settings producer settings besides the transactional id (bootstrap servers at least)
   * @param topic the compacted topic
   * @param prefix coordinator ids and transactional ids are {@code <prefix>-<thread>}
   */
  static Variant perThread(Map<String, Object> settings, String topic, String prefix) {
    return thread -> {
      String id = prefix + "-" + thread;
      Map<String, Object> mine = new HashMap<>(settings);
      mine.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "floor-" + id);
      KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(mine, new ByteArraySerializer(), new ByteArraySerializer());
      try {
        producer.initTransactions();
      } catch (RuntimeException | Error e) {
        producer.close(Duration.ZERO);
        throw e;
      }
      byte[] key = id.getBytes(StandardCharsets.UTF_8);
      byte[] payload = AppendVariants.payload(thread);
      return new Worker() {
        @Override
        public void op() {
          producer.beginTransaction();
          // commitTransaction fails if the send did
          Future<RecordMetadata> unused = producer.send(new ProducerRecord<>(topic, key, payload));
          producer.commitTransaction();
        }

        @Override
        public void close() {
          producer.close(Duration.ofSeconds(10));
        }
      };
    };
  }
}
