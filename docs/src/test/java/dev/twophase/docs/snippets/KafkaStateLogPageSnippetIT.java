package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.StateLog;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * state-log-kafka.md's block, run against an in-JVM broker: the log creates its compacted topic,
 * claims a coordinator and releases it; a second owner then claims it without taking it over.
 */
class KafkaStateLogPageSnippetIT {

  @TempDir Path tmp;

  @Test
  void theConfigurationBlockRuns() {
    try (KafkaTestBroker broker = KafkaTestBroker.start(tmp.resolve("kafka"), 2, Map.of())) {
      String bootstrapServers = broker.bootstrapServers();
      // snippet: state-log-kafka-configure
      try (KafkaStateLog log = KafkaStateLog.builder(
              Map.of("bootstrap.servers", bootstrapServers), "orders-state-log")
          .ownerName("orders-worker-3")       // stable across restarts: see below
          .createTopic(12, (short) 1)         // if missing; replication factor 3 in production
          .build()) {
        StateLog.CoordinatorLog partition0 = log.open("partition-0"); // a Coordinator does this
        partition0.close();                                           // and this: the release
      }
      // end snippet
      try (KafkaStateLog next = KafkaStateLog.builder(
              Map.of("bootstrap.servers", bootstrapServers), "orders-state-log")
          .ownerName("orders-worker-4")
          .build();
          StateLog.CoordinatorLog again = next.open("partition-0")) {
        assertEquals(2, again.ownerEpoch(), "a second claim has the next epoch");
      }
    }
  }
}
