package dev.twophase.flink;

import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A topic on the Kafka participant's in-JVM test broker (one per JVM), the Kafka participant's
 * factory writing into it, and an independent {@code read_committed} reader, which also fails if
 * a transaction is still open on the topic.
 */
final class KafkaTopic {

  private final String bootstrap;
  private final String topic;

  KafkaTopic(String topic, int partitions) {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    this.bootstrap = broker.bootstrapServers();
    this.topic = topic;
    broker.createTopic(topic, partitions);
  }

  /** A topic that exists already on the broker at {@code bootstrap} (for a child JVM of a crash test). */
  KafkaTopic(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  /** {@code host:port} of the broker. */
  String bootstrap() {
    return bootstrap;
  }

  /** The topic's name. */
  String name() {
    return topic;
  }

  /** A Kafka participant sending each record as a value to the topic (captures strings only). */
  ParticipantFactory<KafkaParticipant<String>> participant(String transactionalIdPrefix) {
    String servers = bootstrap;
    String t = topic;
    return () -> KafkaParticipant.<String>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 120_000))
        .records(RecordMapper.toTopic(t, new StringSerializer()))
        .transactionalIdPrefix(transactionalIdPrefix)
        .build();
  }

  /** How often each value is in the committed records; fails if a transaction is left open. */
  Map<String, Integer> valueCounts() {
    Map<String, Integer> counts = new TreeMap<>();
    List<String> values = ReadCommitted.values(bootstrap, topic, Duration.ofSeconds(60));
    for (String v : values) {
      counts.merge(v, 1, Integer::sum);
    }
    return counts;
  }
}
