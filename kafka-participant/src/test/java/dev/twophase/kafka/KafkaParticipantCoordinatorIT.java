package dev.twophase.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.Checkpoint;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorState;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.TransactionLostException;
import dev.twophase.TwoPhaseException;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The participant under a self-driving {@link Coordinator} over a {@link FileStateLog}, against the
 * real broker: the pipelined write path, the id pool, start-up clean-up, timeouts, bad input and
 * resources. Several tests stand for a failure users report of Flink's Kafka sink (named in each).
 */
class KafkaParticipantCoordinatorIT {

  private static KafkaTestBroker broker;

  @TempDir Path tmp;
  private String topic;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @BeforeEach
  void topic() {
    topic = "coord-" + UUID.randomUUID().toString().substring(0, 8);
    broker.createTopic(topic, 3);
  }

  private KafkaParticipant.Builder<String> sink(Map<String, Object> extra) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    settings.putAll(extra);
    return KafkaParticipant.<String>builder(settings)
        .records(RecordMapper.toTopic(topic, new StringSerializer()))
        .transactionalIdPrefix("it-" + topic)
        .closeTimeout(Duration.ofSeconds(5));
  }

  private static CoordinatorConfig pipelined() {
    return CoordinatorConfig.custom().maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK).build();
  }

  /**
   * Many checkpoints, commits pipelined: every record exactly once, the last partial batch of a
   * bounded input included (Flink: "the last batch lost on bounded input"), and no more
   * transactional ids than the pool's (Flink: "too many transactional ids"; "wrong transaction
   * committed after id reuse": ids are reused only after their handles are retired).
   */
  @Test
  void everyRecordOnceThroughAFewReusedIds() throws Exception {
    int records = 3_050;
    KafkaParticipant<String> sink = sink(Map.of()).build();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"))) {
      Coordinator c = Coordinator.builder("pipelined", log).participant("kafka", sink).config(pipelined()).build();
      Output<String> out = c.output(sink);
      for (int i = 0; i < records; i++) {
        out.write("r" + i);
        if ((i + 1) % 100 == 0) {
          c.checkpoint();
        }
      }
      c.finish().awaitCommitted(Duration.ofSeconds(60));
      c.close();
    } finally {
      sink.close();
    }
    List<String> values = ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(60));
    assertEquals(records, values.size());
    assertEquals(records, new HashSet<>(values).size());
    Set<String> used = transactionalIdsOnBroker(sink.transactionalIds().get(0).replaceAll("[0-9]+$", ""));
    assertTrue(used.size() <= KafkaParticipant.defaultPoolSize(2) && used.size() >= 2,
        "31 checkpoints used " + used.size() + " transactional ids: " + used);
    assertEquals(Set.copyOf(sink.transactionalIds()).containsAll(used), true, used.toString());
  }

  /**
   * Transactions an earlier incarnation left open on the pool's ids hold every read_committed
   * reader at the last stable offset (Flink: "lingering transactions"); start-up aborts them.
   */
  @Test
  void startUpAbortsLingeringTransactionsOfThePool() throws Exception {
    List<String> ids;
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        KafkaParticipant<String> sink = sink(Map.of()).build()) {
      Coordinator c = Coordinator.builder("lingering", log).participant("kafka", sink).config(pipelined()).build();
      c.output(sink).write("committed");
      c.finish().awaitCommitted(Duration.ofSeconds(30));
      c.close();
      ids = sink.transactionalIds();
    }
    // What a crash can leave: open transactions with records on ids of the pool.
    for (String id : List.of(ids.get(3), ids.get(5))) {
      KafkaProducer<String, String> zombie = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
          ProducerConfig.TRANSACTIONAL_ID_CONFIG, id), new StringSerializer(), new StringSerializer());
      zombie.initTransactions();
      zombie.beginTransaction();
      zombie.send(new ProducerRecord<>(topic, "lingering " + id)).get();
      zombie.close(Duration.ZERO);
    }
    assertThrows(IllegalStateException.class,
        () -> ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(2)), "the LSO is pinned");

    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        KafkaParticipant<String> sink = sink(Map.of()).build()) {
      Coordinator c = Coordinator.builder("lingering", log).participant("kafka", sink).config(pipelined()).build();
      assertEquals(List.of("committed"), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
      c.close();
    }
  }

  /**
   * A transaction the broker expired before its decided commit is reported LOST with its checkpoint
   * and stops the coordinator (Flink: "data loss when a transaction times out during a long
   * recovery", "loss that is only logged").
   */
  @Test
  void aTransactionExpiredBeforeItsCommitIsLostWithItsCheckpoint() throws Exception {
    InMemoryParticipant<String> slow = new InMemoryParticipant<>(new InMemoryResource<>());
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        KafkaParticipant<String> sink = sink(Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000)).build()) {
      Coordinator c = Coordinator.builder("expiring", log)
          .participant("slow", slow) // commits first: its failures hold the Kafka commit back
          .participant("kafka", sink)
          .config(CoordinatorConfig.custom().commitRetryBackoff(Duration.ofMillis(500), Duration.ofMillis(500), 1.0).build())
          .build();
      c.output(sink).write("expires");
      c.output(slow).write("x");
      slow.failNextCommits(8, new IOException("the other resource is away for 4 s"));
      Checkpoint first = c.checkpoint();
      TwoPhaseException e = assertThrows(TwoPhaseException.class, () -> first.awaitCommitted(Duration.ofSeconds(60)));
      assertTrue(e instanceof TransactionLostException || e.getCause() instanceof TransactionLostException, e.toString());
      assertTrue(e.getMessage().contains("checkpoint " + first.id()) || String.valueOf(e.getCause()).contains("checkpoint " + first.id()),
          e.getMessage());
      assertEquals(CoordinatorState.FAILED, c.state());
      c.close();
    }
    assertEquals(List.of(), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
  }

  /** A record the mapper cannot map, or one too large, fails alone; nothing else is lost. */
  @Test
  void badRecordsFailAloneAndLoseNothing() throws Exception {
    RecordMapper<String> mapper = s -> {
      if (s.startsWith("bad")) {
        throw new IllegalArgumentException("cannot map " + s);
      }
      return new ProducerRecord<>(topic, s.getBytes(StandardCharsets.UTF_8));
    };
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        KafkaParticipant<String> sink = KafkaParticipant.<String>builder(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 10_000))
            .records(mapper).transactionalIdPrefix("bad").build()) {
      Coordinator c = Coordinator.builder("bad-input", log).participant("kafka", sink).build();
      Output<String> out = c.output(sink);
      out.write("good-1");
      TwoPhaseException unmappable = assertThrows(TwoPhaseException.class, () -> out.write("bad-1"));
      assertTrue(String.valueOf(unmappable.getCause()).contains("RecordMapper failed"), unmappable.toString());
      TwoPhaseException tooLarge = assertThrows(TwoPhaseException.class, () -> out.write("x".repeat(20_000)));
      assertTrue(String.valueOf(tooLarge.getCause()).contains("max.request.size"), tooLarge.toString());
      out.write("good-2");
      c.finish().awaitCommitted(Duration.ofSeconds(30));
      c.close();
    }
    assertEquals(List.of("good-1", "good-2"), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
  }

  /**
   * Producer threads and sockets end on every path (Flink: "producer and thread leaks"): after a
   * clean close, after a start-up that failed, and after a fenced participant.
   */
  @Test
  void noProducerOrAdminThreadOutlivesTheParticipant() throws Exception {
    int before = kafkaClientThreads().size();
    // A clean run.
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        KafkaParticipant<String> sink = sink(Map.of()).build()) {
      Coordinator c = Coordinator.builder("threads", log).participant("kafka", sink).config(pipelined()).build();
      for (int i = 0; i < 5; i++) {
        c.output(sink).write("r" + i);
        c.checkpoint();
      }
      c.close();
    }
    awaitThreads(before);
    // A failed start: the broker refuses the transaction timeout.
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state2"));
        KafkaParticipant<String> sink = sink(Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 3_600_000,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)).build()) {
      Coordinator c = null;
      try {
        c = Coordinator.builder("threads-failed", log).participant("kafka", sink).build();
        c.output(sink).write("x");
        c.checkpoint();
        fail("the broker accepted transaction.timeout.ms above its transaction.max.timeout.ms");
      } catch (TwoPhaseException expected) {
        // build() or the first checkpoint: the producer could not register
      } finally {
        if (c != null) {
          c.close();
        }
      }
    }
    awaitThreads(before);
    // Fenced: another producer takes the current transaction's id.
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state3"));
        KafkaParticipant<String> sink = sink(Map.of()).build()) {
      Coordinator c = Coordinator.builder("threads-fenced", log).participant("kafka", sink).build();
      c.output(sink).write("before");
      String current = c.currentTransaction(sink).transactionalId();
      try (KafkaProducer<String, String> usurper = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
          ProducerConfig.TRANSACTIONAL_ID_CONFIG, current), new StringSerializer(), new StringSerializer())) {
        usurper.initTransactions();
      }
      // The records were acknowledged before the take-over, so the pre-commit may pass; the commit
      // cannot, and stops the coordinator.
      TwoPhaseException e = assertThrows(TwoPhaseException.class,
          () -> c.checkpoint().awaitCommitted(Duration.ofSeconds(30)));
      assertTrue(chain(e).contains("taken over by another producer") || chain(e).contains("fenced"), chain(e));
      assertEquals(CoordinatorState.FAILED, c.state());
      c.close();
    }
    awaitThreads(before);
  }

  // ------------------------------------------------------------------ helpers

  private static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      b.append(c).append(" <- ");
    }
    return b.toString();
  }

  private static List<String> kafkaClientThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && (t.getName().startsWith("kafka-producer-network-thread")
          || t.getName().startsWith("kafka-admin-client-thread"))) {
        names.add(t.getName());
      }
    }
    return names;
  }

  /**
   * The start-up warning about a transaction.timeout.ms not longer than the checkpoint interval
   * takes the interval from the coordinator's configuration; the participant's builder need not
   * repeat it.
   */
  @Test
  void theTimeoutWarningTakesTheIntervalFromTheCoordinator() throws Exception {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state-interval"));
        Coordinator c = Coordinator.builder("interval", log)
            .participant("kafka", sink(Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 20_000)).build())
            .config(CoordinatorConfig.custom().checkpointInterval(Duration.ofSeconds(30)).build())
            .build()) {
      c.checkpoint().awaitCommitted(Duration.ofSeconds(30));
    } finally {
      System.setErr(err);
    }
    String logged = captured.toString(StandardCharsets.UTF_8);
    assertTrue(logged.contains("transaction.timeout.ms=20000 is not longer than the checkpoint interval PT30S"), logged);
  }

  private static void awaitThreads(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (kafkaClientThreads().size() > expected && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertEquals(expected, kafkaClientThreads().size(), "Kafka client threads left: " + kafkaClientThreads());
  }

  private static Set<String> transactionalIdsOnBroker(String base) throws Exception {
    Set<String> ids = new HashSet<>();
    try (Admin admin = broker.admin()) {
      for (TransactionListing l : admin.listTransactions().all().get(30, TimeUnit.SECONDS)) {
        if (l.transactionalId().startsWith(base)) {
          ids.add(l.transactionalId());
        }
      }
    }
    assertFalse(ids.isEmpty(), "no transactional id starts with " + base);
    return ids;
  }
}
