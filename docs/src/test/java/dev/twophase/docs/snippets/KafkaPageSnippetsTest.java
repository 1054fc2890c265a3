package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.twophase.CheckpointFailedException;
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
  private static final TopicPartition P1 = new TopicPartition("raw", 1);

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
    second.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    InMemoryParticipant<String> failing = new InMemoryParticipant<>(new InMemoryResource<>());
    Map<TopicPartition, Long> restored = KafkaPageSnippets.togetherWithOthers(log.reopen(),
        failing, new InMemoryParticipant<String>(new InMemoryResource<>()), second, List.of(P0, P1), built);
    assertEquals(Map.of(P0, 42L), restored);
    assertEquals(42L, second.position(P0));

    // read on, then a checkpoint fails: back to the decided position, sought at once
    restored.put(P0, 50L);
    second.seek(P0, 50L);
    restored.put(P1, 7L);                 // a partition read since the start, in no decided checkpoint
    second.seek(P1, 7L);
    failing.failNextPreCommit(new java.io.IOException("planned"));
    assertThrows(CheckpointFailedException.class, built[0]::checkpoint);
    assertEquals(Map.of(P0, 42L), restored);
    assertEquals(42L, second.position(P0));
    assertEquals(0L, second.position(P1), "back to where it began");
    built[0].close();
  }

  @Test
  void inAGroupThePositionIsSoughtWhenThePartitionsAreAssigned() {
    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
    KafkaPageSnippets.inAGroup(consumer, new java.util.HashMap<>(Map.of(P0, 42L)));
    consumer.rebalance(List.of(P0, P1));
    assertEquals(42L, consumer.position(P0), "from the checkpoint");
    assertEquals(0L, consumer.position(P1), "never in a checkpoint: auto.offset.reset");
  }
}
