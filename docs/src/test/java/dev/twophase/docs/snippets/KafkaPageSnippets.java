package dev.twophase.docs.snippets;

import dev.twophase.ApplicationState;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.StateLog;
import dev.twophase.kafka.ConsumedOffsets;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The compiling home of kafka-participant.md's blocks. The ones that need a broker of their own
 * naming ({@code broker1:9092}) only compile; {@link #togetherWithOthers} also runs, in {@code
 * KafkaPageSnippetsTest}, and the test broker's block in {@code KafkaTestBrokerSnippetIT}.
 */
final class KafkaPageSnippets {

  /** An input record of the usage example. */
  record Order(String id, String json) {}

  private static volatile boolean running = true;

  private KafkaPageSnippets() {}

  static void usage(Iterable<Order> source) throws Exception {
    // snippet: kafka-usage
    Map<String, Object> producer = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker1:9092,broker2:9092",
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 900_000);     // see "Timeouts"

    try (FileStateLog log = FileStateLog.open(Path.of("state"))) {
      KafkaParticipant<Order> orders = KafkaParticipant.<Order>builder(producer)
          .records(RecordMapper.of(
              o -> new ProducerRecord<>("orders", o.id(), o.json()),
              new StringSerializer(), new StringSerializer()))
          .transactionalIdPrefix("order-service")
          .build();
      Coordinator coordinator = Coordinator.builder("orders", log)
          .participant("kafka", orders)         // the coordinator owns it now: close() closes it
          .config(CoordinatorConfig.custom()
              .checkpointInterval(Duration.ofSeconds(5))
              .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK)
              .build())
          .build();                             // commits what a crash left decided, aborts the rest
      Output<Order> out = coordinator.output(orders);
      for (Order o : source) {
        out.write(o);                           // sent now, invisible to read_committed readers
        coordinator.maybeCheckpoint();          // flush, decide, then commit on the committer thread
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(60));
      coordinator.close();                      // closes the participant: producers, admin client
    }
    // end snippet
  }

  static void consumeTransformProduce(String bootstrap, Map<String, Object> producer, StateLog log) {
    // snippet: kafka-kip-447
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, "enricher",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer());
    ConsumedOffsets offsets = ConsumedOffsets.of(consumer);
    KafkaParticipant<String> out = KafkaParticipant.<String>builder(producer)
        .records(RecordMapper.toTopic("enriched", new StringSerializer()))
        .transactionalIdPrefix("enricher")
        .consumedOffsets(offsets)                 // sendOffsetsToTransaction(offsets, groupMetadata)
        .build();
    Coordinator coordinator = Coordinator.builder("enricher", log).participant("out", out).build();
    consumer.subscribe(List.of("raw"));           // only after build(): recovery commits offsets too
    Output<String> output = coordinator.output(out);
    while (running) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
        output.write(enrich(r.value()));
        offsets.processed(r);                     // its offset + 1 goes into the next transaction
      }
      try {
        coordinator.maybeCheckpoint();
      } catch (CheckpointFailedException e) {     // aborted: read again from the committed offsets
        offsets.forget(consumer.assignment());
        consumer.committed(consumer.assignment()).forEach((p, o) -> {
          if (o != null) consumer.seek(p, o.offset());
        });
      }
    }
    // end snippet
    coordinator.close();
    consumer.close();
  }

  private static String enrich(String value) {
    return value.toUpperCase(java.util.Locale.ROOT);
  }

  /** Returns the position map of the block, so that a test can see what was restored. */
  static Map<TopicPartition, Long> togetherWithOthers(
      StateLog log, Participant<?, ?> kafkaOut, Participant<?, ?> database,
      Consumer<?, ?> consumer, List<TopicPartition> partitions, Coordinator[] built) {
    // snippet: kafka-with-others
    record Position(String topic, int partition, long next) {}
    record Positions(List<Position> partitions) {}                // the snapshot, as JSON
    Map<TopicPartition, Long> position = new HashMap<>();          // next offset per partition
    BiConsumer<Positions, Long> keep = (restored, checkpointId) -> {
      position.clear();
      restored.partitions().forEach(p ->
          position.put(new TopicPartition(p.topic(), p.partition()), p.next()));
    };
    ApplicationState<Positions> state = ApplicationState.of(
        Codecs.json(Positions.class),
        checkpointId -> new Positions(position.entrySet().stream()
            .map(e -> new Position(e.getKey().topic(), e.getKey().partition(), e.getValue()))
            .toList()),
        keep,                                                      // at start-up: nothing assigned yet
        keep.andThen((restored, checkpointId) ->                   // after a failed checkpoint:
            consumer.assignment().forEach(p -> {                   // running, so seek now
              Long next = position.get(p);
              if (next != null) consumer.seek(p, next);
              else consumer.seekToBeginning(List.of(p));           // not decided yet: where it began
            })));
    Coordinator coordinator = Coordinator.builder("etl", log)
        .participant("kafka", kafkaOut).participant("db", database)
        .applicationState(state).build();                          // restores the position
    consumer.assign(partitions);
    position.forEach(consumer::seek);                              // resume where the decision ends
    // per record: write to every participant, then position.put(partition, offset + 1)
    // end snippet
    built[0] = coordinator;
    return position;
  }

  /**
   * The same with a group subscription: the start-up restore comes before any partition is
   * assigned, so the consumer seeks when they are.
   */
  static void inAGroup(Consumer<?, ?> consumer, Map<TopicPartition, Long> position) {
    // snippet: kafka-with-others-subscribe
    consumer.subscribe(List.of("raw"), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        for (TopicPartition p : assigned) {                        // from the restored checkpoint;
          Long next = position.get(p);                             // one it never held starts at
          if (next != null) consumer.seek(p, next);                // auto.offset.reset
        }
      }

      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> revoked) {}
    });
    // end snippet
  }
}
