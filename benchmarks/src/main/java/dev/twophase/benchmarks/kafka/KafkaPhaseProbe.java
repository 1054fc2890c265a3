package dev.twophase.benchmarks.kafka;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.benchmarks.PhaseTimer;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Where a checkpoint's time goes for {@link KafkaBenchMain}'s {@code serial} variant and its
 * {@code raw2ids} baseline: the coordinator's protocol points, the participant's and the raw loop's
 * steps, timed by a {@link PhaseTimer}, each sink alone for {@code -Dbench.checkpoints} checkpoints
 * of {@code -Dbench.records} 100-byte records (the first fifth not counted). Diagnostic; not a
 * benchmark.
 */
public final class KafkaPhaseProbe {

  private KafkaPhaseProbe() {}

  public static void main(String[] args) throws Exception {
    int perCheckpoint = Integer.getInteger("bench.records", 1_000);
    int checkpoints = Integer.getInteger("bench.checkpoints", 1_000);
    byte[] record = new byte[100];
    Arrays.fill(record, (byte) 'x');
    Path dir = Files.createTempDirectory(Path.of("target"), "kafka-probe");
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker"), 2, Map.of())) {
      String rawTopic = "probe-raw-" + UUID.randomUUID().toString().substring(0, 8);
      broker.createTopic(rawTopic, 1);
      PhaseTimer rawTiming = new PhaseTimer();
      try (RawTransactionalProducerLoop raw = new RawTransactionalProducerLoop(broker.bootstrapServers(),
          "probe-" + rawTopic, rawTopic, dir.resolve("decisions"), 2)) {
        raw.timeWith(rawTiming);
        double millis = rawTiming.run(checkpoints, () -> {
          for (int r = 0; r < perCheckpoint; r++) {
            raw.write(record);
          }
          rawTiming.reached("records sent");
          raw.checkpoint();
          rawTiming.restartAt("checkpoint");
        });
        System.out.printf(Locale.ROOT, "[probe] raw2ids, %d records/checkpoint: %.3f ms per checkpoint%n",
            perCheckpoint, millis);
        rawTiming.print("[probe]");
      }

      String topic = "probe-" + UUID.randomUUID().toString().substring(0, 8);
      broker.createTopic(topic, 1);
      PhaseTimer timing = new PhaseTimer();
      try (FileStateLog log = FileStateLog.open(dir.resolve("state"));
          KafkaParticipant<byte[]> sink = KafkaParticipant.<byte[]>builder(Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                  ProducerConfig.LINGER_MS_CONFIG, 5))
              .records(value -> new ProducerRecord<>(topic, value))
              .transactionalIdPrefix("probe")
              .faultInjector(timing)
              .build()) {
        Coordinator c = Coordinator.builder("probe-" + topic, log).participant("kafka", sink)
            .config(CoordinatorConfig.custom().faultInjector(timing).build())
            .build();
        Output<byte[]> out = c.output(sink);
        double millis = timing.run(checkpoints, () -> {
          for (int r = 0; r < perCheckpoint; r++) {
            out.write(record);
          }
          timing.reached("records written");
          Checkpoint cp = c.checkpoint();
          cp.awaitCommitted(Duration.ofSeconds(60));
          timing.restartAt("awaitCommitted returned");
        });
        System.out.printf(Locale.ROOT, "[probe] serial coordinator, %d records/checkpoint: %.3f ms per checkpoint%n",
            perCheckpoint, millis);
        timing.print("[probe]");
        c.close();
      }
    }
    System.exit(0);
  }
}
