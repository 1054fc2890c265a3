package dev.twophase.benchmarks;

import dev.twophase.flink.TwoPhaseSink;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** KafkaSink against the Kafka participant, a topic per run. */
final class KafkaSinkRuns implements FlinkSinkRuns {
  static final String[] NAMES = {"KafkaSink", "TwoPhaseSink(kafka)"};
  private static final int TRANSACTION_TIMEOUT_MS = 120_000;
  private final KafkaTestBroker broker;
  private final int partitions;

  KafkaSinkRuns(KafkaTestBroker broker, int partitions) {
    this.broker = broker;
    this.partitions = partitions;
  }

  @Override
  public String[] names() {
    return NAMES.clone();
  }

  private static String topic(int run) {
    return "bench-" + run;
  }

  @Override
  public Sink<String> sink(boolean ours, int run) {
    String topic = topic(run);
    broker.createTopic(topic, partitions);
    String servers = broker.bootstrapServers();
    if (ours) {
      return TwoPhaseSink.<String>builder("bench" + run)
          .participant("kafka", () -> KafkaParticipant.<String>builder(Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                  ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS))
              .records(dev.twophase.kafka.RecordMapper.toTopic(topic, new StringSerializer()))
              .transactionalIdPrefix("twophase-" + run)
              .build())
          .build();
    }
    return KafkaSink.<String>builder()
        .setBootstrapServers(servers)
        .setRecordSerializer(KafkaRecordSerializationSchema.builder()
            .setTopic(topic)
            .setValueSerializationSchema(new SimpleStringSchema())
            .build())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix("kafkasink-" + run)
        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(TRANSACTION_TIMEOUT_MS))
        .build();
  }

  @Override
  public long committed(boolean ours, int run) {
    return ReadCommitted.records(broker.bootstrapServers(), topic(run), Duration.ofMinutes(2)).size();
  }

  @Override
  public String where(boolean ours, int run) {
    return "topic " + topic(run);
  }
}
