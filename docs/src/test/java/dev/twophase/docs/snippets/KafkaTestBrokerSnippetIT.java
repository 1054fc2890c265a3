package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-participant.md's test-broker block, run: a broker, a topic, its committed records, and close(). */
class KafkaTestBrokerSnippetIT {

  @TempDir Path tmp;

  @Test
  @SuppressWarnings("unused") // the snippet shows the call's result, which the test does not check
  void theTestBrokerBlockRuns() {
    // snippet: kafka-test-broker
    try (KafkaTestBroker broker = KafkaTestBroker.start(tmp.resolve("kafka"), 2, Map.of())) {
      broker.createTopic("orders", 1);
      // run the application against broker.bootstrapServers()
      List<String> values = ReadCommitted.values(broker.bootstrapServers(), "orders", Duration.ofSeconds(30));
    }
    // end snippet
    assertFalse(Files.exists(tmp.resolve("kafka")), "close() stops the broker and deletes its directory");
  }
}
