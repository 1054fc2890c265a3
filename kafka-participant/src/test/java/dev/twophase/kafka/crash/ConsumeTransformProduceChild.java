package dev.twophase.kafka.crash;

import dev.twophase.kafka.KafkaPoints;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FaultInjector;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.crash.ChildProgram;
import dev.twophase.kafka.ConsumedOffsets;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Consume-transform-produce in a child JVM (KIP-447): reads the input topic as a
 * {@code read_committed} consumer of a group, writes {@code "out-<value>"} to the output topic
 * through a Kafka participant that commits the consumed offsets in the same transaction, a
 * checkpoint every k records, until the input's end. The consumer is assigned the partitions (no
 * group membership, so that a new JVM need not wait for the crashed member's session to time out)
 * and starts from the group's committed offsets, which the participant's transactions commit.
 *
 * <p>Arguments: {@code bootstrapServers stateDir inputTopic outputTopic group k}. Crash point in
 * {@value #CRASH_AT}.
 */
public final class ConsumeTransformProduceChild {

  public static final String COORDINATOR = "ctp";
  /** The crash point, {@code POINT} or {@code POINT:n}: a {@code ProtocolPoint} or a Kafka participant point. */
  public static final String CRASH_AT = "twophase.kafka.crashAt";

  public static void main(String[] args) {
    ChildProgram.main(() -> run(args));
  }

  private static void run(String[] args) throws Exception {
    if (args.length != 7) {
      throw new IllegalArgumentException("usage: ConsumeTransformProduceChild bootstrap stateDir input output group k report");
    }
    String bootstrap = args[0];
    String input = args[2];
    String output = args[3];
    int k = Integer.parseInt(args[5]);
    FaultInjector faults = CrashInjector.parse(System.getProperty(CRASH_AT), KafkaPoints.all());

    try (StateLog log = ChildProgram.openLog(Path.of(args[1]), 0);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.GROUP_ID_CONFIG, args[4],
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7), new StringDeserializer(), new StringDeserializer())) {
      ConsumedOffsets offsets = ConsumedOffsets.of(consumer);
      KafkaParticipant<String> sink = KafkaParticipant.<String>builder(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))
          .records(RecordMapper.toTopic(output, new StringSerializer()))
          .transactionalIdPrefix("ctp")
          .consumedOffsets(offsets)
          .faultInjector(faults)
          .build();
      try (sink) {
        Coordinator coordinator = Coordinator.builder(COORDINATOR, log).participant("out", sink)
            .config(CoordinatorConfig.custom().faultInjector(faults)
                .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK).build())
            .build();
        // Only now: recovery committed the pending transactions, and with them their offsets.
        List<TopicPartition> partitions = consumer.partitionsFor(input).stream()
            .map(p -> new TopicPartition(input, p.partition())).toList();
        consumer.assign(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        Output<String> out = coordinator.output(sink);
        long sinceCheckpoint = 0;
        while (!reached(consumer, end)) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            out.write("out-" + r.value());
            offsets.processed(r);
            if (++sinceCheckpoint == k) {
              sinceCheckpoint = 0;
              try {
                coordinator.checkpoint();
              } catch (CheckpointFailedException e) {
                rewind(consumer, offsets, partitions); // replay from the last committed offsets
              }
            }
          }
        }
        coordinator.finish().awaitCommitted(Duration.ofSeconds(60));
        coordinator.close();
      }
    }
  }

  private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static void rewind(KafkaConsumer<?, ?> consumer, ConsumedOffsets offsets, List<TopicPartition> partitions) {
    offsets.forget(partitions);
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
    for (TopicPartition p : partitions) {
      OffsetAndMetadata o = committed.get(p);
      if (o == null) {
        consumer.seekToBeginning(List.of(p));
      } else {
        consumer.seek(p, o.offset());
      }
    }
  }
}
