package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.CoordinatorConfig;
import dev.twophase.Output;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.group.GroupRunner;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scaling.md's block, run against an in-JVM broker: one worker of group {@code orders-app} copies
 * each order to a topic and to files, exactly once, until it is closed.
 */
class ScalingPageSnippetIT {

  @TempDir Path tmp;

  @Test
  void theWorkerBlockRuns() throws Exception {
    try (KafkaTestBroker broker = KafkaTestBroker.start(tmp.resolve("kafka"), 2, Map.of())) {
      String bootstrapServers = broker.bootstrapServers();
      broker.createTopic("orders", 3);
      broker.createTopic("orders-enriched", 1);
      Path outputDir = tmp.resolve("out");
      try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrapServers),
          new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < 100; i++) {
          p.send(new ProducerRecord<>("orders", "order-" + i));
        }
      }
      // snippet: scaling-worker
      KafkaStateLog log = KafkaStateLog.builder(Map.of("bootstrap.servers", bootstrapServers), "orders-state")
          .ownerName("orders-worker-1")   // stable across restarts of this worker
          .takeOver(true)                 // the group decides who runs a task
          .createTopic(12, (short) 1)     // replication factor 3 in production
          .build();
      GroupRunner<String, String> runner = GroupRunner.builder(
              Map.of("bootstrap.servers", bootstrapServers, "group.id", "orders-app",
                  "auto.offset.reset", "earliest"),
              new StringDeserializer(), new StringDeserializer())
          .topics("orders")
          .stateLog(log)
          .coordinatorConfig(CoordinatorConfig.custom()
              .checkpointInterval(Duration.ofSeconds(1))
              .maxPendingCheckpoints(4, CoordinatorConfig.WhenPendingFull.BLOCK)
              .build())
          .tasks(task -> {                // once per input partition, wherever it runs
            Output<String> topic = task.output("kafka", KafkaParticipant.<String>builder(
                    Map.of("bootstrap.servers", bootstrapServers))
                .records(RecordMapper.toTopic("orders-enriched", new StringSerializer()))
                .transactionalIdPrefix("orders-app")
                .consumedOffsets(task.consumedOffsets())   // KIP-447: zombies cannot commit
                .build());
            Output<CharSequence> files = task.output("files",
                FileParticipant.builder(outputDir, RecordEncoders.lines()).build());
            return record -> {
              String enriched = record.value().toUpperCase();
              topic.write(enriched);
              files.write(enriched);
            };
          })
          .build();
      Runtime.getRuntime().addShutdownHook(new Thread(runner::close));  // SIGTERM: hand tasks over
      // end snippet
      CompletableFuture<Void> running = CompletableFuture.runAsync(runner::run);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (ReadCommitted.visibleNow(bootstrapServers, "orders-enriched", Duration.ofSeconds(5)).size() < 100
          && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      runner.close();
      running.get(60, TimeUnit.SECONDS);
      log.close();
      List<String> values = ReadCommitted.values(bootstrapServers, "orders-enriched", Duration.ofSeconds(30));
      assertEquals(100, values.size());
      assertEquals(100, new HashSet<>(values).size());
    }
  }
}
