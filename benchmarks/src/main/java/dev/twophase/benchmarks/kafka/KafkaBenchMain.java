package dev.twophase.benchmarks.kafka;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Records/s through the Kafka participant under a coordinator against a hand-written transactional
 * producer loop doing the same durable work ({@link RawTransactionalProducerLoop}: a commit per
 * checkpoint and one synced decision record), against an in-JVM broker, 100-byte records, at 1,000
 * and 100,000 records per checkpoint (at least 10 checkpoints per measurement). One run interleaves
 * the variants round by round and prints each round, the ratios of the medians, and the median and
 * range of the per-round ratios:
 * <ul>
 *   <li>{@code raw}: the hand-written loop, serial, one producer;
 *   <li>{@code raw2ids}: the same with two producers alternating per checkpoint, as the
 *       participant's id pool does (the like-for-like baseline);
 *   <li>{@code pipelined}: the coordinator, commits on the committer thread while the next
 *       checkpoint is written ({@code maxPendingCheckpoints(2, BLOCK)});
 *   <li>{@code serial}: the coordinator, each checkpoint's commit awaited before the next record.
 * </ul>
 * Speed is measured here, never asserted in tests. Run as {@code docs/benchmarks.md} shows, with
 * the arguments {@code [rounds] [records per round]}.
 */
public final class KafkaBenchMain {

  private static final byte[] RECORD = new byte[100];

  private KafkaBenchMain() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    Arrays.fill(RECORD, (byte) 'x');
    Path dir = Path.of("target", "kafka-bench");
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker"), 2, Map.of())) {
      for (int perCheckpoint : new int[] {1_000, 100_000}) {
        Map<String, List<Double>> results = new LinkedHashMap<>();
        for (String v : List.of("raw", "raw2ids", "pipelined", "serial")) {
          results.put(v, new ArrayList<>());
        }
        run(broker, dir, "raw", perCheckpoint, Math.min(perRound, 20_000)); // warm-up
        run(broker, dir, "pipelined", perCheckpoint, Math.min(perRound, 20_000));
        int records = Math.max(perRound, 10 * perCheckpoint); // at least 10 checkpoints per run
        List<String> order = new ArrayList<>(results.keySet());
        for (int round = 0; round < rounds; round++) {
          // the order reverses every round (A B C D, D C B A, ...), so that no variant always
          // follows the same one into a broker still busy with the previous run's data
          for (String variant : order) {
            double rate = run(broker, dir, variant, perCheckpoint, records);
            results.get(variant).add(rate);
            System.out.printf("%,7d records/checkpoint  round %d  %-9s %,10.0f records/s%n",
                perCheckpoint, round, variant, rate);
          }
          Collections.reverse(order);
        }
        double raw = median(results.get("raw"));
        double raw2 = median(results.get("raw2ids"));
        double pipelined = median(results.get("pipelined"));
        double serial = median(results.get("serial"));
        System.out.printf("%,7d records/checkpoint  medians: raw %,.0f  raw2ids %,.0f  pipelined %,.0f  serial %,.0f"
                + " records/s;  pipelined/raw %.2f  pipelined/raw2ids %.2f  serial/raw2ids %.2f  pipelined/serial %.2f%n",
            perCheckpoint, raw, raw2, pipelined, serial, pipelined / raw, pipelined / raw2, serial / raw2,
            pipelined / serial);
        for (String[] pair : new String[][] {{"pipelined", "raw2ids"}, {"serial", "raw2ids"},
            {"pipelined", "serial"}, {"raw2ids", "raw"}}) {
          List<Double> ratios = new ArrayList<>();
          for (int round = 0; round < rounds; round++) {
            ratios.add(results.get(pair[0]).get(round) / results.get(pair[1]).get(round));
          }
          System.out.printf("%,7d records/checkpoint  %s/%s per round: median %.2f, range %.2f-%.2f%n",
              perCheckpoint, pair[0], pair[1], median(ratios), Collections.min(ratios), Collections.max(ratios));
        }
      }
    }
  }

  private static double run(KafkaTestBroker broker, Path dir, String variant, int perCheckpoint, int records)
      throws Exception {
    String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    broker.createTopic(topic, 1);
    if (variant.startsWith("raw")) {
      try (RawTransactionalProducerLoop raw = new RawTransactionalProducerLoop(broker.bootstrapServers(),
          "bench-raw-" + topic, topic, dir.resolve("decisions-" + topic + ".log"), variant.equals("raw2ids") ? 2 : 1)) {
        long t0 = System.nanoTime();
        for (int i = 1; i <= records; i++) {
          raw.write(RECORD);
          if (i % perCheckpoint == 0) {
            raw.checkpoint();
          }
        }
        return records / ((System.nanoTime() - t0) / 1e9);
      }
    }
    boolean pipelined = variant.equals("pipelined");
    try (FileStateLog log = FileStateLog.open(dir.resolve("state-" + topic));
        KafkaParticipant<byte[]> sink = KafkaParticipant.<byte[]>builder(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 5))
            .records(value -> new ProducerRecord<>(topic, value))
            .transactionalIdPrefix("bench")
            .build()) {
      Coordinator c = Coordinator.builder("bench-" + topic, log).participant("kafka", sink)
          .config(CoordinatorConfig.custom().maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK).build())
          .build();
      Output<byte[]> out = c.output(sink);
      // The raw loops open and initialize their producers before the clock starts; the participant
      // opens one per transactional id it first uses. A few checkpoints before the clock starts
      // open the ids the run goes on to use.
      for (int i = 0; i < 6; i++) {
        out.write(RECORD);
        Checkpoint cp = c.checkpoint();
        if (!pipelined) {
          cp.awaitCommitted(java.time.Duration.ofSeconds(60));
        }
      }
      long t0 = System.nanoTime();
      for (int i = 1; i <= records; i++) {
        out.write(RECORD);
        if (i % perCheckpoint == 0) {
          Checkpoint cp = c.checkpoint();
          if (!pipelined) {
            cp.awaitCommitted(java.time.Duration.ofSeconds(60));
          }
        }
      }
      c.finish().awaitCommitted(java.time.Duration.ofSeconds(60));
      double rate = records / ((System.nanoTime() - t0) / 1e9);
      c.close();
      return rate;
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
