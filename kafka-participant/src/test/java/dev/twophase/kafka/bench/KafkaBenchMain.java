package dev.twophase.kafka.bench;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

/**
 * Measures records/s of {@link RawTransactionalProducerLoop} against an in-JVM broker, 100-byte
 * records, at 1,000 and 100,000 records per checkpoint, several rounds. Speed is measured here,
 * never asserted in tests. Run from the module after {@code mvn -pl kafka-participant -am
 * test-compile}:
 * {@code java -cp <test class path> dev.twophase.kafka.bench.KafkaBenchMain [rounds] [recordsPerRound]}.
 */
public final class KafkaBenchMain {

  private KafkaBenchMain() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 300_000;
    byte[] record = new byte[100];
    Arrays.fill(record, (byte) 'x');
    Path dir = Path.of("target", "kafka-bench");
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker"), 2, Map.of())) {
      for (int perCheckpoint : new int[] {1_000, 100_000}) {
        for (int round = 0; round < rounds; round++) {
          String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
          broker.createTopic(topic, 1);
          try (RawTransactionalProducerLoop raw = new RawTransactionalProducerLoop(
              broker.bootstrapServers(), "bench-raw-" + topic, topic, dir.resolve("decisions-" + topic + ".log"))) {
            long t0 = System.nanoTime();
            for (int i = 1; i <= perRound; i++) {
              raw.write(record);
              if (i % perCheckpoint == 0) {
                raw.checkpoint();
              }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("raw  %,7d records/checkpoint  round %d: %,10.0f records/s%n",
                perCheckpoint, round, perRound / seconds);
          }
        }
      }
    }
  }
}
