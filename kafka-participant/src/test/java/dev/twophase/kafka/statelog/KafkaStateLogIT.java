package dev.twophase.kafka.statelog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.internal.statelog.StateLogDamage;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KafkaStateLog} against the in-JVM broker: claims, fencing, refusal, damage, failures. */
class KafkaStateLogIT {

  private static final int PARTITIONS = 3;
  private static KafkaTestBroker broker;

  @TempDir Path tmp;
  private String topic;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @BeforeEach
  void newTopic() {
    topic = "state-log-" + UUID.randomUUID();
  }

  private KafkaStateLog.Builder builder(String owner) {
    return KafkaStateLog.builder(Map.of("bootstrap.servers", broker.bootstrapServers()), topic)
        .createTopic(PARTITIONS, (short) 1)
        .ownerName(owner);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void statesAndMarksSurviveReopeningAndEpochsRise() {
    String logId;
    long firstEpoch;
    try (KafkaStateLog log = builder("a").build()) {
      logId = log.logId();
      assertTrue(logId.matches("[a-z0-9]{8}"), logId);
      CoordinatorLog c = log.open("c-1");
      assertNull(c.lastState());
      assertEquals(0, c.lastCompletedCheckpointId());
      firstEpoch = c.ownerEpoch();
      c.appendState(1, bytes("one"));
      c.appendCompletion(1);
      c.appendState(2, bytes("two"));
      c.appendCompletion(2);
      assertEquals(2, c.lastCompletedCheckpointId());
      assertThrows(IllegalArgumentException.class, () -> c.appendState(1, bytes("back")));
    }
    try (KafkaStateLog log = builder("a").build()) {
      assertEquals(logId, log.logId());
      CoordinatorLog c = log.open("c-1");
      assertEquals(2, c.lastState().checkpointId());
      assertArrayEquals(bytes("two"), c.lastState().payload());
      assertEquals(2, c.lastCompletedCheckpointId(), "the mark of 2 rides in the release");
      assertTrue(c.ownerEpoch() > firstEpoch);
      assertEquals(logId, c.logId());
      assertNull(log.open("c-2").lastState());
    }
  }

  /**
   * Processes that open a new log at the same moment (the workers of a group starting together)
   * all get its one log id: a creator fenced by another waits for the other's id.
   */
  @Test
  void processesOpeningANewLogAtOnceAllGetItsOneLogId() throws Exception {
    int processes = 4;
    CyclicBarrier start = new CyclicBarrier(processes);
    List<CompletableFuture<String>> opened = new ArrayList<>();
    for (int i = 0; i < processes; i++) {
      String owner = "worker-" + i;
      opened.add(CompletableFuture.supplyAsync(() -> {
        try {
          start.await();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        try (KafkaStateLog log = builder(owner).build()) {
          return log.logId();
        }
      }));
    }
    Set<String> ids = new HashSet<>();
    for (CompletableFuture<String> f : opened) {
      ids.add(f.get(60, TimeUnit.SECONDS));
    }
    assertEquals(1, ids.size(), "one log id for all: " + ids);
  }

  @Test
  void aTakeOverFencesTheHolderAndReadsWhatItDecided() {
    try (KafkaStateLog first = builder("first").build();
        KafkaStateLog second = builder("second").takeOver(true).build()) {
      CoordinatorLog a = first.open("c");
      a.appendState(5, bytes("five"));
      a.appendState(6, bytes("six"));
      CoordinatorLog b = second.open("c");
      assertTrue(b.ownerEpoch() > a.ownerEpoch());
      assertEquals(6, b.lastState().checkpointId());
      assertArrayEquals(bytes("six"), b.lastState().payload());
      FencedException e = assertThrows(FencedException.class, () -> a.appendState(7, bytes("7")));
      assertTrue(e.getMessage().contains("'c'"), e.getMessage());
      assertThrows(FencedException.class, () -> a.appendState(8, bytes("8")), "stays fenced");
      b.appendState(7, bytes("seven"));
      a.close(); // releases nothing: it is fenced
    }
    try (KafkaStateLog third = builder("third").build()) {
      CoordinatorLog c = third.open("c"); // released by second's close
      assertArrayEquals(bytes("seven"), c.lastState().payload());
    }
  }

  @Test
  void aClaimOfAHeldCoordinatorIsRefusedAndFencesNothing() {
    try (KafkaStateLog first = builder("first").build();
        KafkaStateLog second = builder("second").build()) {
      CoordinatorLog a = first.open("c");
      a.appendState(1, bytes("one"));
      CoordinatorHeldException e = assertThrows(CoordinatorHeldException.class,
          () -> second.open("c"));
      assertEquals("first", e.holder());
      assertEquals(a.ownerEpoch(), e.holderEpoch());
      assertEquals("c", e.coordinatorId());
      assertTrue(e.getMessage().contains("takeOver(true)"), e.getMessage());
      a.appendState(2, bytes("two")); // not fenced
      CoordinatorHeldException same = assertThrows(CoordinatorHeldException.class,
          () -> first.open("c"));
      assertTrue(same.getMessage().contains("already open"), same.getMessage());
      a.close();
      CoordinatorLog b = second.open("c"); // released now
      assertArrayEquals(bytes("two"), b.lastState().payload());
    }
  }

  @Test
  void theSameOwnerNameClaimsAgainWithoutTakingOver() {
    KafkaStateLog crashed = builder("worker-3").build();
    CoordinatorLog a = crashed.open("c");
    a.appendState(1, bytes("one"));
    // A restart of worker-3 after a crash: the old log was never closed.
    try (KafkaStateLog restarted = builder("worker-3").build()) {
      CoordinatorLog b = restarted.open("c");
      assertArrayEquals(bytes("one"), b.lastState().payload());
      assertThrows(FencedException.class, () -> a.appendState(2, bytes("two")));
    } finally {
      crashed.close();
    }
  }

  @Test
  void aStateOfSixteenMebibytesRoundTripsAndASmallerOneAfterIt() {
    byte[] big = new byte[StateLog.MAX_STATE_BYTES];
    new Random(7).nextBytes(big);
    try (KafkaStateLog log = builder("a").build()) {
      CoordinatorLog c = log.open("big");
      c.appendState(1, big);
      assertThrows(IllegalArgumentException.class,
          () -> c.appendState(2, new byte[StateLog.MAX_STATE_BYTES + 1]));
    }
    try (KafkaStateLog log = builder("a").build()) {
      CoordinatorLog c = log.open("big");
      assertArrayEquals(big, c.lastState().payload());
      c.appendState(2, bytes("small"));
      c.appendState(3, new byte[0]);
    }
    try (KafkaStateLog log = builder("a").build()) {
      CoordinatorLog c = log.open("big");
      assertEquals(3, c.lastState().checkpointId());
      assertEquals(0, c.lastState().payload().length);
    }
  }

  @Test
  void aTopicThatIsNotCompactedIsRefusedNamingCleanupPolicy() throws Exception {
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
          .configs(Map.of("cleanup.policy", "delete")))).all().get(30, TimeUnit.SECONDS);
    }
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> builder("a")
        .build());
    assertTrue(e.getMessage().contains("cleanup.policy=delete"), e.getMessage());
    assertTrue(e.getMessage().contains(topic), e.getMessage());
  }

  @Test
  void otherUnsafeTopicSettingsAreRefusedInOneMessage() throws Exception {
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
          "cleanup.policy", "compact,delete", "unclean.leader.election.enable", "true",
          "max.message.bytes", "100000")))).all().get(30, TimeUnit.SECONDS);
    }
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> builder("a")
        .build());
    assertTrue(e.getMessage().contains("cleanup.policy=compact,delete"), e.getMessage());
    assertTrue(e.getMessage().contains("unclean.leader.election.enable=true"), e.getMessage());
    assertTrue(e.getMessage().contains("max.message.bytes=100000"), e.getMessage());
  }

  @Test
  void aMissingTopicIsNamedUnlessTheLogCreatesIt() {
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> KafkaStateLog
        .builder(Map.of("bootstrap.servers", broker.bootstrapServers()), topic).build());
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    assertTrue(e.getMessage().contains("createTopic"), e.getMessage());
  }

  @Test
  void clientPropertiesThatBreakDurabilityAreRefused() {
    for (Map<String, String> bad : List.of(Map.of("acks", "1"),
        Map.of("enable.idempotence", "false"), Map.of("transactional.id", "x"),
        Map.of("isolation.level", "read_uncommitted"))) {
      Map<String, String> props = new java.util.HashMap<>(bad);
      props.put("bootstrap.servers", broker.bootstrapServers());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> KafkaStateLog.builder(props, topic).build());
      assertTrue(e.getMessage().contains(bad.keySet().iterator().next()), e.getMessage());
    }
  }

  @Test
  void aDamagedLastStateIsReportedWithTopicPartitionOffsetAndCoordinator() throws Exception {
    try (KafkaStateLog log = builder("a").build()) {
      log.open("c").appendState(1, bytes("one"));
    }
    StateLogDamage.flipLastStateByte(broker.bootstrapServers(), topic, PARTITIONS, "c");
    try (KafkaStateLog log = builder("a").build()) {
      StateLogCorruptedException e = assertThrows(StateLogCorruptedException.class,
          () -> log.open("c"));
      assertTrue(e.getMessage().contains("checksum"), e.getMessage());
      assertTrue(e.getMessage().contains("'c'"), e.getMessage());
      assertTrue(e.getMessage().contains(topic + "-"), e.getMessage());
      assertTrue(e.offset() >= 0);
      log.open("other").appendState(1, bytes("x")); // the rest of the log is usable
    }
  }

  @Test
  void anIncompleteLastStateIsReported() throws Exception {
    String logId;
    try (KafkaStateLog log = builder("a").build()) {
      logId = log.logId();
      log.open("c").appendState(1, bytes("one"));
    }
    StateLogDamage.appendOrphanChunk(broker.bootstrapServers(), topic, PARTITIONS, logId, "c", 3);
    try (KafkaStateLog log = builder("a").build()) {
      StateLogCorruptedException e = assertThrows(StateLogCorruptedException.class,
          () -> log.open("c"));
      assertTrue(e.getMessage().contains("incomplete: chunk 1 of 3 is missing"), e.getMessage());
    }
  }

  @Test
  void aTopicWithCoordinatorRecordsButNoLogIdIsAnError() throws Exception {
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)
          .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
    }
    StateLogDamage.appendOwnerRecord(broker.bootstrapServers(), topic, PARTITIONS, "abcd1234",
        "c", "someone");
    StateLogCorruptedException e = assertThrows(StateLogCorruptedException.class,
        () -> builder("a").build());
    assertTrue(e.getMessage().contains("no log-id record"), e.getMessage());
  }

  @Test
  void aBrokerThatStopsInTheMiddleOfAnAppendLeavesTheDecisionUnknown() {
    KafkaTestBroker own = KafkaTestBroker.start(tmp.resolve("broker"),
        Integer.getInteger(KafkaTestBroker.TRANSACTION_VERSION_PROPERTY, 2), Map.of());
    KafkaStateLog log = null;
    try {
      log = KafkaStateLog.builder(Map.of("bootstrap.servers", own.bootstrapServers(),
              "max.block.ms", "3000", "request.timeout.ms", "2000", "delivery.timeout.ms", "3000"),
              topic)
          .createTopic(1, (short) 1).ownerName("a").timeout(java.time.Duration.ofSeconds(10))
          .build();
      CoordinatorLog c = log.open("c");
      c.appendState(1, bytes("one"));
      own.close();
      FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
          () -> c.appendState(2, bytes("two")));
      assertTrue(e.getMessage().contains("decision is unknown"), e.getMessage());
      assertNotEquals(FencedException.class, e.getClass());
      FatalTwoPhaseException again = assertThrows(FatalTwoPhaseException.class,
          () -> c.appendState(3, bytes("three")));
      assertTrue(again.getMessage().contains("takes no more appends"), again.getMessage());
    } finally {
      if (log != null) {
        log.close();
      }
      own.close();
    }
    assertTrue(producerThreadsOf(topic).isEmpty(), () -> "threads left: " + producerThreadsOf(topic));
  }

  @Test
  void closeLeavesNoClientThreadBehind() {
    try (KafkaStateLog log = builder("a").build()) {
      for (int i = 0; i < 4; i++) {
        log.open("c" + i).appendState(1, bytes("x"));
      }
      assertEquals(4, producerThreadsOf(topic).size(), () -> "" + producerThreadsOf(topic));
    }
    assertTrue(producerThreadsOf(topic).isEmpty(), () -> "threads left: " + producerThreadsOf(topic));
  }

  @Test
  void anInterruptedThreadAppendsAndKeepsItsFlag() {
    try (KafkaStateLog log = builder("a").build()) {
      CoordinatorLog c = log.open("c");
      Thread.currentThread().interrupt();
      try {
        c.appendState(1, bytes("one"));
        assertTrue(Thread.currentThread().isInterrupted(), "the flag is kept");
      } finally {
        Thread.interrupted();
      }
    }
    try (KafkaStateLog log = builder("a").build()) {
      assertArrayEquals(bytes("one"), log.open("c").lastState().payload());
    }
  }

  @Test
  void aTopicWhosePartitionCountChangedIsRefused() throws Exception {
    try (KafkaStateLog log = builder("a").build()) {
      log.open("c").appendState(1, bytes("one"));
    }
    try (Admin admin = broker.admin()) {
      admin.createPartitions(Map.of(topic, org.apache.kafka.clients.admin.NewPartitions
          .increaseTo(PARTITIONS + 2))).all().get(30, TimeUnit.SECONDS);
    }
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> waitForPartitions(PARTITIONS + 2));
    assertTrue(e.getMessage().contains("created with " + PARTITIONS), e.getMessage());
    assertTrue(e.getMessage().contains("must never change"), e.getMessage());
  }

  /** Opens the log once the brokers' metadata shows {@code partitions} partitions. */
  private void waitForPartitions(int partitions) throws Exception {
    try (Admin admin = broker.admin()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
          .get(topic).partitions().size() < partitions && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    }
    builder("a").build().close();
  }

  @Test
  void aClaimWaitsForAnOpenTransactionInItsPartitionAndFailsRetriablyAfterTheTimeout()
      throws Exception {
    try (KafkaStateLog log = builder("a").build()) {
      log.open("c").appendState(1, bytes("one"));
    }
    int partition = dev.twophase.kafka.internal.statelog.RecordKey.partitionOf("c", PARTITIONS);
    try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> stuck =
        new org.apache.kafka.clients.producer.KafkaProducer<>(Map.of(
            "bootstrap.servers", broker.bootstrapServers(), "transactional.id", "stuck-" + topic),
            new org.apache.kafka.common.serialization.ByteArraySerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      stuck.initTransactions();
      stuck.beginTransaction();
      stuck.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition,
          bytes("owner/another"), bytes("x"))).get(30, TimeUnit.SECONDS);
      try (KafkaStateLog log = builder("b").timeout(java.time.Duration.ofSeconds(2)).build()) {
        dev.twophase.RetriableTwoPhaseException e = assertThrows(
            dev.twophase.RetriableTwoPhaseException.class, () -> log.open("c"));
        assertTrue(e.getMessage().contains("a transaction on this partition is open"),
            e.getMessage());
        assertTrue(producerThreadsOf(topic).isEmpty(), () -> "left: " + producerThreadsOf(topic));
      }
      stuck.abortTransaction();
    }
    try (KafkaStateLog log = builder("b").build()) {
      assertArrayEquals(bytes("one"), log.open("c").lastState().payload());
    }
  }

  private static List<String> producerThreadsOf(String topic) {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.contains("twophase-log-") && n.contains(topic) && !n.contains("log-id"))
        .filter(n -> n.startsWith("kafka-producer-network-thread")).toList();
  }
}
