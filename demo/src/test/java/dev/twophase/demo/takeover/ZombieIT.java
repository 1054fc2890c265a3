package dev.twophase.demo.takeover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A zombie: process A runs one coordinator on a shared state log (JDBC on PostgreSQL, Kafka) and
 * is stopped with {@code SIGSTOP} after it committed three checkpoints; process B (take-over on)
 * claims the coordinator, which fences A in the log; A is resumed with {@code SIGCONT}. A must stop
 * and decide and commit nothing after its resumption; B (or, where B cannot start while A lives, a
 * B started after A is gone) recovers and finishes the input; the independent {@link Checker} then
 * finds every record exactly once in each participant and nothing prepared, open or in progress.
 *
 * <p>With files, PostgreSQL and Kafka, A is resumed after B ended, and must fail with the log's
 * {@code FencedException} at its next append. Known limitation, accepted and printed as a finding:
 * while A is stopped (not dead), B's claim in the state log succeeds (and fences A there), but B's
 * start-up is refused by the participants' own claims of A's transactions, which A still holds:
 * the file participant's OS lock on its claim file, the JDBC participant's PostgreSQL advisory
 * lock (a session the stopped process keeps open). Those claims exist to refuse a copy of a state
 * log started beside the original; they do not know the log's epochs. On the JDBC log, B's claim
 * itself waits for the row lock of a writer transaction A was stopped in (and fails at the server's
 * {@code lock_timeout}): A is stopped a moment after a commit, when its writer is usually idle, and
 * that refusal is accepted too. A second B then runs once A is gone.
 *
 * <p>With the Kafka participant alone (no claims outside the log) on the Kafka log, B does take
 * over while A is stopped, and A is resumed while B runs. Known bug, accepted and printed: A's
 * fenced producer fails its pre-commit with {@code InvalidProducerEpochException}, which the
 * coordinator takes for a failed checkpoint, not for fencing; it begins new transactions, and A's
 * new producer on a shared transactional id fences B's, so that B's checkpoint fails (A's job stops
 * at its own failure; B's is recovered by a second B). {@link
 * #aResumedZombieDoesNotUndoTheNewOwnersDecision} (disabled) shows the same sequence aborting a
 * transaction B had decided.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ZombieIT {

  static final long RECORDS = 60;
  static final int EVERY = 5;
  /** A's pace: a checkpoint every 0.5 s, so that it is in the middle of its input when stopped. */
  static final long DELAY_MILLIS = 100;

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private Servers servers;

  @BeforeAll
  void startServers() throws Exception {
    servers = Servers.shared();
  }

  /**
   * Every shared log with the three participants; on the JDBC log PostgreSQL and Kafka without
   * files (the JDBC participant's claim is then the one that refuses B); and on the Kafka log a
   * coordinator with the Kafka participant alone, which claims nothing outside the state log, so
   * that B does take over while A is stopped.
   */
  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    TakeoverIT.LOGS.stream().filter(StateLogs::sharedKind).forEach(log -> cases.add(Arguments.of(log, JobArgs.ALL)));
    // Without the file participant, whose claim refuses B first: the JDBC participant's.
    cases.add(Arguments.of("jdbc", TakeoverJob.PG + "," + TakeoverJob.KAFKA));
    cases.add(Arguments.of("kafka", TakeoverJob.KAFKA));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} log, participants {1}")
  @MethodSource("cases")
  void aStoppedOwnerIsFencedAndDecidesNothing(String log, String participants, @TempDir Path dir) throws Exception {
    String id = "zombie" + log + participants.length();
    Path shared = Files.createDirectories(dir.resolve("shared"));
    String table = "orders_" + id;
    String topic = "orders-" + id;
    servers.createTable(table);
    servers.createTopic(topic);
    JobArgs base = new JobArgs("A", id, TakeoverIT.logSpec(log, shared, servers, id), false,
        shared.resolve("out").toString(), dir.resolve("local-A").toString(), servers.pgUrl(), table,
        servers.bootstrap(), topic, "tx-" + id + "-", RECORDS, EVERY, DELAY_MILLIS, "none", participants);
    List<String> findings = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    try (ChildJob a = ChildJob.start("A", base)) {
      assertTrue(a.awaitLine(l -> l.equals(TakeoverJob.COMMITTED + 3), TIMEOUT), a.output());
      // Not in the middle of the completion mark's write that follows the commit: a JDBC log
      // writer stopped inside its transaction holds its row lock (a known limitation).
      Thread.sleep(250);
      a.signal("STOP");
      Thread.sleep(300); // what A printed before it stopped reaches us
      int stoppedAt = a.lineCount();

      // With claims outside the log (files, PostgreSQL) B cannot start while A lives, and A is
      // resumed after B ended; without them (Kafka alone) B takes over, and A is resumed while B
      // runs, to see whether the zombie disturbs the new owner.
      boolean concurrent = participants.equals(TakeoverJob.KAFKA);
      ChildJob b = ChildJob.start("B", base.withOwner("B", dir.resolve("local-B").toString(), "none", true,
          concurrent ? DELAY_MILLIS : 0));
      if (concurrent) {
        assertTrue(b.awaitLine(l -> l.equals(TakeoverJob.COMMITTED + 5), TIMEOUT), b.output());
        a.signal("CONT");
      }
      boolean bEnded = b.awaitExit(TIMEOUT);
      outputs.add(b.output());
      assertTrue(bEnded, "B did not end within " + TIMEOUT + "\n" + b.output());
      boolean bFinished = b.exitCode() == 0;
      if (!bFinished) {
        // Known limitations (see the class comment); anything else is a failure.
        String failure = b.lines().stream().filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse("");
        boolean participantClaim = failure.contains("FencedException") && failure.contains(" are claimed by ");
        boolean rowLocked = log.equals("jdbc") && failure.contains("could not be claimed") && failure.contains("55P03");
        findings.add("B failed: " + failure);
        boolean kafkaFenced = failure.contains("old epoch") || failure.contains("another producer");
        assertTrue(concurrent ? kafkaFenced : participantClaim || rowLocked,
            "B must take over, or be refused by a participant's claim of A or A's lock on its log row\n" + b.output());
      }

      if (!concurrent) {
        a.signal("CONT");
      }
      boolean aEnded = a.awaitExit(Duration.ofSeconds(30));
      outputs.add(0, a.output());
      if (!aEnded) {
        findings.add("A did not exit within 30 s of its resumption: killed");
      }
      List<String> after = a.lines().subList(stoppedAt, a.lineCount());
      System.out.println("A after SIGCONT: " + after);
      assertEquals(List.of(), after.stream()
          .filter(l -> l.startsWith(TakeoverJob.DECIDED) || l.startsWith(TakeoverJob.COMMITTED)
              || l.startsWith(TakeoverJob.FINISHED))
          .toList(), "A decided or committed after B claimed the coordinator\n" + a.output());
      String aFailure = after.stream().filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse("");
      if (concurrent) {
        // Known bug (see aResumedZombieDoesNotUndoTheNewOwnersDecision): the Kafka participant's
        // fenced producer fails the pre-commit with InvalidProducerEpochException, a failed
        // checkpoint rather than fencing; A's job stops at it, deciding nothing.
        assertTrue(!aFailure.isEmpty(), "A must fail\n" + a.output());
        if (!aFailure.contains("FencedException")) {
          findings.add("A did not fail with a FencedException: " + aFailure);
        }
      } else {
        // Its next append: the log's fencing, not a participant's.
        assertTrue(aFailure.contains("FencedException") && aFailure.contains("state log"),
            "A must fail with the log's FencedException at its next append\n" + a.output());
      }

      // What the zombie left behind, before anyone cleans it up.
      List<String> left = Checker.check(base, servers).stream().filter(p -> p.contains("left")).toList();
      if (!left.isEmpty()) {
        findings.add("after A's end" + (bFinished ? " (B finished)" : "") + ": " + left);
      }

      if (!bFinished) {
        try (ChildJob b2 = ChildJob.start("B2", base.withOwner("B2", dir.resolve("local-B2").toString(), "none",
            true, 0))) {
          boolean ended = b2.awaitExit(TIMEOUT);
          outputs.add(b2.output());
          assertTrue(ended && b2.exitCode() == 0, "B2 must finish once A is gone\n" + b2.output());
        }
      }
      b.close();
    }
    System.out.println("zombie findings (" + log + ", " + participants + "): " + findings);
    assertEquals(List.of(), Checker.check(base, servers), String.join("\n----\n", outputs));
  }

  /**
   * The zombie against a decision of the new owner: B (Kafka participant alone, Kafka log) is
   * paused right after its second decision is durable, before its commit; then A is resumed. A's
   * pre-commit fails on its fenced producer with {@code InvalidProducerEpochException}, which the
   * coordinator takes for a failed checkpoint (not for fencing): it aborts and begins new
   * transactions, and A's Kafka participant opens a new producer ({@code initTransactions()}) on a
   * transactional id of its pool. The ids carry the owner epoch, so that id is one of A's epoch,
   * never the id of B's decided transaction: B's commit must go through, with every record once.
   */
  @Test
  void aResumedZombieDoesNotUndoTheNewOwnersDecision(@TempDir Path dir) throws Exception {
    int decision = 2; // B's transaction of its second decision is on the id A's new producer takes
    String id = "zombiedecision" + decision;
    Path shared = Files.createDirectories(dir.resolve("shared"));
    String topic = "orders-" + id;
    servers.createTopic(topic);
    JobArgs base = new JobArgs("A", id, TakeoverIT.logSpec("kafka", shared, servers, id), false,
        shared.resolve("out").toString(), dir.resolve("local-A").toString(), servers.pgUrl(), "none",
        servers.bootstrap(), topic, "tx-" + id + "-", RECORDS, EVERY, DELAY_MILLIS, "none", TakeoverJob.KAFKA);
    List<String> outputs = new ArrayList<>();
    List<String> findings = new ArrayList<>();
    try (ChildJob a = ChildJob.start("A", base)) {
      assertTrue(a.awaitLine(l -> l.equals(TakeoverJob.COMMITTED + 3), TIMEOUT), a.output());
      Thread.sleep(250);
      a.signal("STOP");
      Thread.sleep(300);
      int stoppedAt = a.lineCount();
      Path localB = dir.resolve("local-B");
      try (ChildJob b = ChildJob.start("B", base.withOwner("B", localB.toString(),
          "pause:AFTER_LOG_APPEND:" + decision, true, 0))) {
        assertTrue(b.awaitLine(l -> l.startsWith(StopAtPoint.PAUSED), TIMEOUT), b.output());
        a.signal("CONT");
        boolean aEnded = a.awaitExit(Duration.ofSeconds(30));
        outputs.add(a.output());
        if (!aEnded) {
          findings.add("A did not exit within 30 s of its resumption: killed");
        }
        List<String> after = a.lines().subList(stoppedAt, a.lineCount());
        assertEquals(List.of(), after.stream()
            .filter(l -> l.startsWith(TakeoverJob.DECIDED) || l.startsWith(TakeoverJob.COMMITTED))
            .toList(), "A decided or committed after B claimed the coordinator\n" + a.output());
        Files.createFile(localB.resolve(StopAtPoint.RESUME));
        boolean bEnded = b.awaitExit(TIMEOUT);
        outputs.add(b.output());
        assertTrue(bEnded, b.output());
        if (b.exitCode() != 0) {
          findings.add("B failed after A's resumption: " + b.lines().stream()
              .filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse(""));
          try (ChildJob b2 = ChildJob.start("B2", base.withOwner("B2", dir.resolve("local-B2").toString(), "none",
              true, 0))) {
            b2.awaitExit(TIMEOUT);
            outputs.add(b2.output());
            if (b2.exitCode() != 0) {
              findings.add("B2 failed: " + b2.lines().stream()
                  .filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse(""));
            }
          }
        }
      }
    }
    System.out.println("zombie findings (decision " + decision + "): " + findings);
    assertEquals(List.of(), Checker.check(base, servers), String.join("\n----\n", outputs));
  }
}
