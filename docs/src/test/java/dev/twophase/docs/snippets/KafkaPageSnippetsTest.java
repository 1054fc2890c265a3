package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.Coordinator;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * kafka-participant.md's "Kafka together with other participants" block, run with two in-memory
 * participants in place of Kafka and a database: the position goes into a checkpoint, and a new
 * coordinator on the same log restores it and seeks the consumer there.
 */
class KafkaPageSnippetsTest {

  private static final TopicPartition P0 = new TopicPartition("raw", 0);

  @Test
  void thePositionOfADecidedCheckpointIsRestoredAndSought() throws Exception {
    InMemoryStateLog log = new InMemoryStateLog();
    Coordinator[] built = new Coordinator[1];
    MockConsumer<String, String> first = new MockConsumer<>("earliest");
    Map<TopicPartition, Long> position = KafkaPageSnippets.togetherWithOthers(log,
        new InMemoryParticipant<String>(new InMemoryResource<>()), new InMemoryParticipant<String>(new InMemoryResource<>()),
        first, List.of(P0), built);
    assertEquals(Map.of(), position, "a new log holds no position");
    position.put(P0, 42L);
    built[0].checkpoint();
    built[0].close();

    MockConsumer<String, String> second = new MockConsumer<>("earliest");
    Map<TopicPartition, Long> restored = KafkaPageSnippets.togetherWithOthers(log.reopen(),
        new InMemoryParticipant<String>(new InMemoryResource<>()), new InMemoryParticipant<String>(new InMemoryResource<>()),
        second, List.of(P0), built);
    assertEquals(Map.of(P0, 42L), restored);
    assertEquals(42L, second.position(P0));
    built[0].close();
  }
}
