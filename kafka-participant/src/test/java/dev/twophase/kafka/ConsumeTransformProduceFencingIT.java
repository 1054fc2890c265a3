package dev.twophase.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorState;
import dev.twophase.FencedException;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.TwoPhaseException;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-447's fencing through the participant: an instance whose consumer-group generation is stale
 * (its partitions went to another instance while it did not poll) cannot commit its output and
 * its input offsets; its checkpoint fails with a {@link FencedException} and stops its
 * coordinator.
 */
class ConsumeTransformProduceFencingIT {

  private static KafkaTestBroker broker;

  @TempDir Path tmp;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @Test
  void aZombieOfAnOlderGenerationIsFenced() throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String input = "fence-in-" + unique;
    String output = "fence-out-" + unique;
    String group = "fence-group-" + unique;
    broker.createTopic(input, 1);
    broker.createTopic(output, 1);
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 10; i++) {
        p.send(new ProducerRecord<>(input, Integer.toString(i))).get();
      }
    }
    try (KafkaConsumer<String, String> zombie = consumer(group);
        KafkaConsumer<String, String> successor = consumer(group);
        FileStateLog log = FileStateLog.open(tmp.resolve("state"))) {
      ConsumedOffsets offsets = ConsumedOffsets.of(zombie);
      KafkaParticipant<String> sink = KafkaParticipant.<String>builder(Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))
          .records(RecordMapper.toTopic(output, new StringSerializer()))
          .transactionalIdPrefix("fence")
          .consumedOffsets(offsets)
          .build();
      try (sink) {
        Coordinator c = Coordinator.builder("fence", log).participant("out", sink).build();
        zombie.subscribe(List.of(input));
        Output<String> out = c.output(sink);
        int read = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (read == 0 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : zombie.poll(Duration.ofMillis(200))) {
            out.write("out-" + r.value());
            offsets.processed(r);
            read++;
          }
        }
        assertTrue(read > 0, "the first instance read nothing");

        // The zombie stops polling (a long GC pause, say); another instance takes the partitions.
        successor.subscribe(List.of(input));
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (successor.assignment().isEmpty() && System.nanoTime() < deadline) {
          successor.poll(Duration.ofMillis(200));
        }
        assertTrue(!successor.assignment().isEmpty(), "the second instance never got the partitions");

        TwoPhaseException e = assertThrows(TwoPhaseException.class, c::checkpoint);
        assertTrue(isFenced(e), "expected a FencedException in " + e);
        assertEquals(CoordinatorState.FAILED, c.state());
        c.close();
      }
    }
    assertEquals(List.of(), ReadCommitted.values(broker.bootstrapServers(), output, Duration.ofSeconds(30)),
        "the zombie's output is never visible");
  }

  private static boolean isFenced(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof FencedException) {
        return true;
      }
    }
    return false;
  }

  private static KafkaConsumer<String, String> consumer(String group) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, group,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        // The zombie is dropped from the group soon after it stops polling.
        ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 3_000,
        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000,
        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000), new StringDeserializer(), new StringDeserializer());
  }
}
