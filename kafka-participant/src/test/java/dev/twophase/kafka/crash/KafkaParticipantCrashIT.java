package dev.twophase.kafka.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.ProtocolPoint;
import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.ChildProgram;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.internal.TransactionFinisher;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kills a child JVM ({@link KafkaCrashChild}: two Kafka participants under one coordinator) at each
 * point of the protocol and of the Kafka participant, recovers in a new JVM, and proves with
 * {@code read_committed} readers that right after recovery both topics show exactly the inputs
 * before the restored position, and after the clean finish every input exactly once, with no
 * transaction of the coordinator left open on the broker.
 */
class KafkaParticipantCrashIT {

  /** 8 checkpoints of K inputs and the finish checkpoint with the last 2 (a partial batch). */
  static final long N = 42;
  static final int K = 5;
  static final long CHECKPOINTS = N / K + 1;

  private static KafkaTestBroker broker;

  @TempDir Path tmp;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  static Stream<Arguments> crashes() {
    List<Arguments> cases = new ArrayList<>();
    // DURING_LOG_APPEND and DURING_COMPACTION are the state log's own points, not the coordinator's.
    for (ProtocolPoint p : List.of(ProtocolPoint.BEFORE_PRE_COMMIT, ProtocolPoint.BETWEEN_PRE_COMMITS,
        ProtocolPoint.AFTER_PRE_COMMITS, ProtocolPoint.AFTER_LOG_APPEND, ProtocolPoint.BETWEEN_COMMITS,
        ProtocolPoint.AFTER_COMMITS)) {
      cases.add(Arguments.of(p.name(), 3));
    }
    cases.add(Arguments.of(ProtocolPoint.AFTER_LOG_APPEND.name(), (int) CHECKPOINTS)); // the finish checkpoint
    cases.add(Arguments.of(KafkaParticipant.AFTER_FLUSH, 1)); // a's pre-commit in checkpoint 1
    cases.add(Arguments.of(KafkaParticipant.AFTER_FLUSH, 6)); // b's pre-commit in checkpoint 3
    cases.add(Arguments.of(TransactionFinisher.AFTER_COMMIT, 1)); // a committed, b not
    cases.add(Arguments.of(TransactionFinisher.AFTER_COMMIT, 6)); // both of checkpoint 3, before the mark
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}:{1}")
  @MethodSource("crashes")
  void crashThenRecover(String point, int hit) throws Exception {
    Scenario s = new Scenario(tmp);
    ChildJvm.Run crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point);
    checkReportIfAny(crashed);
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    s.assertFinal();
  }

  /** A crash while recovery commits: the next recovery finishes the job exactly once. */
  @Test
  void crashDuringRecoveryCommit() throws Exception {
    Scenario s = new Scenario(tmp);
    assertCrashedAt(s.run(ProtocolPoint.AFTER_LOG_APPEND + ":3"), ProtocolPoint.AFTER_LOG_APPEND.name());
    ChildJvm.Run during = s.run(TransactionFinisher.AFTER_RECOVERY_COMMIT + ":1");
    assertCrashedAt(during, TransactionFinisher.AFTER_RECOVERY_COMMIT);
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    assertEquals(3L * K, checkReport(clean), "checkpoint 3 was decided before the first crash\n" + clean.describe());
    s.assertFinal();
  }

  /** Several crashes in a row, at coordinator and Kafka points. */
  @Test
  void crashesInARow() throws Exception {
    Scenario s = new Scenario(tmp);
    for (String p : List.of(ProtocolPoint.AFTER_LOG_APPEND + ":2", ProtocolPoint.DURING_RECOVERY_COMMIT + ":1",
        KafkaParticipant.AFTER_FLUSH + ":3", TransactionFinisher.AFTER_COMMIT + ":2",
        ProtocolPoint.BETWEEN_PRE_COMMITS + ":2")) {
      ChildJvm.Run c = s.run(p);
      assertCrashedAt(c, p.substring(0, p.lastIndexOf(':')));
      checkReportIfAny(c);
    }
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    s.assertFinal();
  }

  // ------------------------------------------------------------------ scenario and checks

  /** One coordinator's history: its state directory, its two topics, its children. */
  final class Scenario {
    final Path dir;
    final String topicA;
    final String topicB;
    final List<ChildJvm.Run> children = new ArrayList<>();

    Scenario(Path dir) {
      this.dir = dir;
      String unique = UUID.randomUUID().toString().substring(0, 8);
      topicA = "crash-a-" + unique;
      topicB = "crash-b-" + unique;
      broker.createTopic(topicA, 2);
      broker.createTopic(topicB, 1);
    }

    ChildJvm.Run run(String crashAt) throws Exception {
      Map<String, String> props = new HashMap<>();
      props.put("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
      if (crashAt != null) {
        props.put(KafkaCrashChild.CRASH_AT, crashAt);
      }
      ChildJvm.Run run = ChildJvm.runNumbered(dir, children.size() + 1, KafkaCrashChild.class, props, null,
          List.of(broker.bootstrapServers(), dir.resolve("state").toString(), topicA, topicB, Long.toString(N),
              Integer.toString(K)),
          Duration.ofMinutes(2));
      children.add(run);
      return run;
    }

    /** Every input exactly once in each topic, and no transaction of the coordinator open. */
    void assertFinal() throws Exception {
      StringBuilder all = new StringBuilder();
      children.forEach(c -> all.append(c.describe()).append('\n'));
      for (String topic : List.of(topicA, topicB)) {
        TreeMap<Long, Integer> counts = ChildProgram.counts(
            String.join(",", ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(60))));
        List<Long> missing = new ArrayList<>();
        List<Long> twice = new ArrayList<>();
        for (long i = 0; i < N; i++) {
          int c = counts.getOrDefault(i, 0);
          if (c == 0) {
            missing.add(i);
          } else if (c > 1) {
            twice.add(i);
          }
        }
        assertTrue(missing.isEmpty() && twice.isEmpty() && counts.size() == N,
            topic + ": missing " + ChildProgram.ranges(missing) + ", more than once " + ChildProgram.ranges(twice)
                + ", values " + counts.keySet() + "\n" + all);
      }
      try (Admin admin = broker.admin()) {
        List<String> open = new ArrayList<>();
        for (TransactionListing l : admin.listTransactions(new ListTransactionsOptions()
                .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
                    TransactionState.PREPARE_ABORT)))
            .all().get(30, TimeUnit.SECONDS)) {
          if (l.transactionalId().startsWith(KafkaCrashChild.ID_PREFIX + "-" + KafkaCrashChild.COORDINATOR)) {
            open.add(l.transactionalId() + " " + l.state());
          }
        }
        assertEquals(List.of(), open, "transactions left open\n" + all);
      }
    }
  }

  static void assertCrashedAt(ChildJvm.Run child, String point) {
    if (child.timedOut()) {
      fail("child did not finish in time\n" + child.describe());
    }
    if (child.exitCode() == 0) {
      fail("the crash point " + point + " was never reached: the child ran to the end\n" + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(),
        "the child failed instead of crashing at " + point + "\n" + child.describe());
    assertTrue(child.err().contains(point), "no mention of " + point + " in the child's log\n" + child.describe());
  }

  static void assertDone(ChildJvm.Run child) {
    assertTrue(!child.timedOut() && child.exitCode() == 0 && child.out().lines().anyMatch("DONE"::equals),
        "the clean child did not finish\n" + child.describe());
  }

  /** Right after recovery both topics show exactly the inputs before the restored position. */
  static long checkReport(ChildJvm.Run child) throws Exception {
    assertTrue(child.recovered(), "the child wrote no recovery report\n" + child.describe());
    Properties report = ChildProgram.readReport(child.report());
    long position = Long.parseLong(report.getProperty("position"));
    assertTrue(position % K == 0 || position == N, "position " + position + " is not at a checkpoint\n" + child.describe());
    for (String topic : List.of("a", "b")) {
      TreeMap<Long, Integer> counts = ChildProgram.counts(report.getProperty(topic));
      TreeMap<Long, Integer> expected = new TreeMap<>();
      for (long i = 0; i < position; i++) {
        expected.put(i, 1);
      }
      assertEquals(expected, counts, "right after recovery, topic " + topic + " must show 0.." + (position - 1)
          + " exactly once\n" + child.describe());
    }
    return position;
  }

  static void checkReportIfAny(ChildJvm.Run child) throws Exception {
    if (child.recovered()) {
      checkReport(child);
    }
  }
}
