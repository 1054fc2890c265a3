package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.crash.ChildJvm;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.testing.CrashInjector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real crashes of a Flink job at every {@link FlinkPoints} point: a child JVM ({@link
 * CrashPointsJob}) runs a bounded job on its own MiniCluster whose sink writes files, an H2 table
 * and a Kafka topic, and halts ({@code Runtime.halt}, status 86) at the point's hit; a new child
 * JVM restores the job from the latest checkpoint the first one retained (or starts it without
 * state if none completed) and runs it to the end. Then this JVM, knowing nothing of the sink,
 * counts every input in every participant's committed output: each exactly once, no part file in
 * progress, no transaction prepared in H2, none open in Kafka.
 *
 * <p>Per checkpoint, the writer reaches BEFORE_PRE_COMMIT and AFTER_PRE_COMMITS once and
 * BETWEEN_PRE_COMMITS twice (three participants), the committer BETWEEN_COMMITS twice and
 * AFTER_COMMITS once per committable. Each point is crashed at its first hit (the first checkpoint:
 * for the writer's points none completed yet, and the next child starts without state), then, in
 * the next child, at a hit of a later checkpoint, after one completed; a third child restores that
 * and runs to the end. (One scenario for both hits, so that the IT starts 19 child JVMs rather
 * than 24.)
 *
 * <p>DURING_RECOVERY_COMMIT is reached by a restored writer once for each handle its state holds
 * as pending: pre-committed, not yet reported committed, of a participant that listens for
 * retirement (the JDBC and Kafka participants; the file participant does not). A checkpoint's
 * writer state holds the committable the writer emitted for that same checkpoint, so a restore of
 * any checkpoint reaches it twice here; see {@link #crashesDuringRecoveryCommit}.
 */
class CrashPointsIT {

  /**
   * Inputs per scenario: at a millisecond per record and a checkpoint every 200 ms, a run without
   * crash takes four or five checkpoints and the final one.
   */
  static final long N = 800;
  static final Duration CHILD_TIMEOUT = Duration.ofMinutes(2);
  private static final AtomicInteger SCENARIOS = new AtomicInteger();

  @TempDir
  Path tmp;

  /**
   * Each point but recovery's: the hit of a later checkpoint at which the second child halts, and
   * whether a checkpoint completed before the first hit (for the committer's points; the second
   * child restores it, otherwise it starts without state).
   */
  static Stream<Arguments> crashes() {
    return Stream.of(
        Arguments.of(FlinkPoints.BEFORE_PRE_COMMIT, 3, false),   // the third checkpoint, nothing pre-committed
        Arguments.of(FlinkPoints.BETWEEN_PRE_COMMITS, 4, false), // 1: files pre-committed; 4: the second, H2 too
        Arguments.of(FlinkPoints.AFTER_PRE_COMMITS, 3, false),
        Arguments.of(FlinkPoints.BETWEEN_COMMITS, 4, true),      // 1: files committed; 4: H2 too (a restored job
                                                                 // reaches 1 and 2 with the restored committable)
        Arguments.of(FlinkPoints.AFTER_COMMITS, 3, true));
  }

  /**
   * The first child halts at the point's first hit, in the job's first checkpoint; the second
   * starts from what that left and halts at a later checkpoint's hit; the third restores the latest
   * checkpoint and runs to the end.
   */
  @ParameterizedTest(name = "{0}:1, then {0}:{1}")
  @MethodSource("crashes")
  void crashTwiceThenRestore(String point, int laterHit, boolean firstRestores) throws Exception {
    Scenario s = new Scenario(tmp);
    assertCrashedAt(s.run(point, 1), point, 1);
    assertCrashedAt(s.run(point, laterHit), point, laterHit);
    ChildJvm.Run clean = s.run(null, 0);
    assertEquals(firstRestores, s.restored(2) != null, "the second child restored " + s.restored(2));
    assertTrue(s.restored(3) != null, "the second child completed a checkpoint before its crash: " + s.restores);
    assertFinished(clean);
    s.assertExactlyOnce();
  }

  /** The point list of the test is the adapter's. */
  @Test
  void everyPointIsCrashed() {
    List<String> crashed = new ArrayList<>(crashes().map(a -> (String) a.get()[0]).distinct().toList());
    crashed.add(FlinkPoints.DURING_RECOVERY_COMMIT);
    assertEquals(FlinkPoints.all(), crashed);
  }

  /**
   * The first child halts between the commits of the second checkpoint's committable, after the
   * H2 commit, before the Kafka one. The second restores that checkpoint: Flink's committer commits
   * the committable (Kafka's part for the first time), then the writer recommits the H2 and the
   * Kafka handle the state holds as pending, and halts after the first. The third restores the same
   * checkpoint again and halts after the second, the fourth runs to the end.
   */
  @Test
  void crashesDuringRecoveryCommit() throws Exception {
    Scenario s = new Scenario(tmp);
    assertCrashedAt(s.run(FlinkPoints.BETWEEN_COMMITS, 4), FlinkPoints.BETWEEN_COMMITS, 4);
    assertCrashedAt(s.run(FlinkPoints.DURING_RECOVERY_COMMIT, 1), FlinkPoints.DURING_RECOVERY_COMMIT, 1);
    assertCrashedAt(s.run(FlinkPoints.DURING_RECOVERY_COMMIT, 2), FlinkPoints.DURING_RECOVERY_COMMIT, 2);
    ChildJvm.Run clean = s.run(null, 0);
    assertTrue(s.restored(2) != null && s.restored(2).equals(s.restored(3)) && s.restored(3).equals(s.restored(4)),
        "children 2, 3 and 4 restore the checkpoint child 1 left: " + s.restores);
    assertFinished(clean);
    assertEquals(2, reached(clean, FlinkPoints.DURING_RECOVERY_COMMIT),
        "the restored writer recommits the H2 and the Kafka handle the checkpoint holds as pending\n"
            + clean.describe());
    s.assertExactlyOnce();
  }

  // ------------------------------------------------------------------ assertions

  private static void assertCrashedAt(ChildJvm.Run child, String point, int hit) {
    if (child.timedOut()) {
      fail("the child did not end in time\n" + child.describe());
    }
    if (child.exitCode() == 0) {
      fail("the job ended without reaching " + point + ":" + hit + ", so this case proves nothing\n"
          + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), "the child failed instead of crashing at " + point
        + ":" + hit + "\n" + child.describe());
    assertTrue(child.err().contains("crash injected at " + point + " (hit " + hit + ")"),
        "no 'crash injected at " + point + " (hit " + hit + ")' in the child's log\n" + child.describe());
    assertEquals(hit, reached(child, point), "times the child reached " + point + "\n" + child.describe());
  }

  private static void assertFinished(ChildJvm.Run child) {
    assertTrue(!child.timedOut() && child.exitCode() == 0 && child.out().lines().anyMatch("DONE"::equals),
        "the restored job did not run to the end\n" + child.describe());
  }

  /** How often the child's sink reached {@code point}. */
  private static long reached(ChildJvm.Run child, String point) {
    String line = CrashPointsJob.REACHED + point;
    return child.out().lines().filter(line::equals).count();
  }

  // ------------------------------------------------------------------ scenario

  /**
   * One scenario's resources, owned by this JVM: the part files' directory, the H2 database (this
   * JVM opens it only between children, with a URL that closes it with its last connection), a
   * topic of its own (also the Kafka participant's transactional id prefix), and the directory of
   * the retained checkpoints.
   */
  private static final class Scenario {
    private final Path dir;
    private final Path files;
    private final Path db;
    private final Path checkpoints;
    private final KafkaTopic topic;
    /** The checkpoint each child restored, null where it started without state. */
    private final List<String> restores = new ArrayList<>();
    private int children;

    Scenario(Path dir) throws Exception {
      this.dir = dir;
      this.files = dir.resolve("files");
      this.db = dir.resolve("db");
      this.checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
      this.topic = new KafkaTopic("crash-points-" + SCENARIOS.incrementAndGet(), 1);
      new H2Table(ownUrl()).create();
    }

    /** H2 as a child opens it: the URL of flink.md. */
    private String childUrl() {
      return EmbeddedH2InterruptTest.url(db) + ";LOCK_TIMEOUT=5000";
    }

    /** H2 as this JVM opens it: closed with the last connection, so that the next child can open it. */
    private String ownUrl() {
      return "jdbc:h2:file:" + db.toAbsolutePath() + ";WRITE_DELAY=0;LOCK_TIMEOUT=5000";
    }

    /** Runs the next child, armed with {@code point:hit} ({@code null}: no crash). */
    ChildJvm.Run run(String point, int hit) throws IOException, InterruptedException {
      int number = ++children;
      String restore = latestCheckpoint();
      restores.add(restore.equals("-") ? null : restore);
      Map<String, String> props = new LinkedHashMap<>();
      // Flink's INFO would bury the sink's messages and the crash's.
      props.put("org.slf4j.simpleLogger.defaultLogLevel", "warn");
      props.put("org.slf4j.simpleLogger.log.dev.twophase", "info");
      if (point != null) {
        props.put(ChildJvm.CRASH_AT, point + ":" + hit);
      }
      List<String> command = new ArrayList<>(ChildJvm.command(CrashPointsJob.class, props, List.of(
          files.toString(), childUrl(), topic.bootstrap(), topic.name(), checkpoints.toString(), Long.toString(N),
          restore)));
      command.replaceAll(option -> option.startsWith("-Xmx") ? "-Xmx512m" : option); // a MiniCluster
      Path stdout = dir.resolve("child-" + number + ".out");
      Path stderr = dir.resolve("child-" + number + ".err");
      Path threads = dir.resolve("child-" + number + ".threads");
      ChildJvm.Result r = ChildJvm.run(command, stdout, stderr, threads, CHILD_TIMEOUT);
      return new ChildJvm.Run(number, point == null ? null : point + ":" + hit, r.exitCode(), r.timedOut(),
          stdout, stderr, threads, dir.resolve("child-" + number + ".recovered"));
    }

    /** The checkpoint child {@code number} (from 1) restored, or null if it started without state. */
    String restored(int number) {
      return restores.get(number - 1);
    }

    /** The newest checkpoint a child retained, or {@code -} if none completed. */
    private String latestCheckpoint() throws IOException {
      try (Stream<Path> s = Files.walk(checkpoints)) {
        if (s.noneMatch(p -> p.getFileName().toString().equals("_metadata"))) {
          return "-";
        }
      }
      return Jobs.latestCheckpoint(checkpoints);
    }

    /** Every input once in each participant, nothing in progress, prepared or open. */
    void assertExactlyOnce() throws Exception {
      assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(files), N), "files");
      assertEquals(List.of(), CommittedFiles.inProgress(files), "files in progress");
      H2Table table = new H2Table(ownUrl());
      assertEquals(List.of(), CommittedFiles.notExactlyOnce(table.rowCounts(), N), "H2 rows");
      assertEquals(List.of(), table.inDoubt(), "transactions prepared in H2");
      // read_committed up to the end of the log: fails if a transaction is open on the topic
      assertEquals(List.of(), CommittedFiles.notExactlyOnce(topic.valueCounts(), N), "Kafka records");
      assertEquals(List.of(), openKafkaTransactions(), "Kafka transactions of the scenario still open");
    }

    /** The transactional ids of this scenario's prefix whose transaction is not completed. */
    private List<String> openKafkaTransactions() throws Exception {
      try (Admin admin = KafkaTestBroker.shared().admin()) {
        List<String> open = new ArrayList<>();
        for (TransactionListing t : admin.listTransactions(new ListTransactionsOptions()
            .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
                TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE)))
            .all().get(30, TimeUnit.SECONDS)) {
          if (t.transactionalId().startsWith(topic.name() + "-")) {
            open.add(t.transactionalId() + " " + t.state());
          }
        }
        return open;
      }
    }
  }
}
