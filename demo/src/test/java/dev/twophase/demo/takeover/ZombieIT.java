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
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A zombie: process A runs one coordinator on a shared state log (JDBC on PostgreSQL, Kafka) and
 * is stopped with {@code SIGSTOP} after it committed three checkpoints; process B (take-over on)
 * claims the coordinator, which fences A in the log, and starts while A's process still lives and
 * holds its sessions, producers and files; A is resumed with {@code SIGCONT} while B runs. A must
 * stop with a {@code FencedException}, deciding and committing nothing after its resumption; B
 * must finish the input; the independent {@link Checker} then finds every record exactly once in
 * each participant and nothing prepared, open or in progress.
 *
 * <p>One exception is accepted and printed as a finding: on the JDBC log, a writer stopped inside
 * its transaction holds the coordinator's row lock, and B's claim waits for it until the server's
 * {@code lock_timeout} (docs/state-log-jdbc.md: {@code idle_in_transaction_session_timeout} ends
 * such a session). A is stopped a moment after a commit, when its writer is idle; if B's claim is
 * refused nonetheless, a second B runs once A is gone.
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

  /** Every shared log, with files, PostgreSQL and Kafka. */
  static Stream<String> sharedLogs() {
    return TakeoverIT.LOGS.stream().filter(StateLogs::sharedKind);
  }

  @ParameterizedTest(name = "{0} log")
  @MethodSource("sharedLogs")
  void aStoppedOwnerIsFencedAndDecidesNothing(String log, @TempDir Path dir) throws Exception {
    String id = "zombie" + log;
    Path shared = Files.createDirectories(dir.resolve("shared"));
    String table = "orders_" + id;
    String topic = "orders-" + id;
    servers.createTable(table);
    servers.createTopic(topic);
    JobArgs base = new JobArgs("A", id, TakeoverIT.logSpec(log, shared, servers, id), false,
        shared.resolve("out").toString(), dir.resolve("local-A").toString(), servers.pgUrl(), table,
        servers.bootstrap(), topic, "tx-" + id + "-", RECORDS, EVERY, DELAY_MILLIS, "none", JobArgs.ALL);
    List<String> findings = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    try (ChildJob a = ChildJob.start("A", base)) {
      assertTrue(a.awaitLine(l -> l.equals(TakeoverJob.COMMITTED + 3), TIMEOUT), a.output());
      // Not in the middle of the completion mark's write that follows the commit: a JDBC log
      // writer stopped inside its transaction holds its row lock (see the class comment).
      Thread.sleep(250);
      a.signal("STOP");
      Thread.sleep(300); // what A printed before it stopped reaches us
      int stoppedAt = a.lineCount();

      ChildJob b = ChildJob.start("B", base.withOwner("B", dir.resolve("local-B").toString(), "none", true,
          DELAY_MILLIS));
      boolean bStarted = b.awaitLine(l -> l.equals(TakeoverJob.COMMITTED + 5) || l.startsWith(TakeoverJob.FAILED),
          TIMEOUT);
      boolean rowLocked = false;
      if (bStarted && b.lines().stream().anyMatch(l -> l.startsWith(TakeoverJob.FAILED))) {
        String failure = b.lines().stream().filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse("");
        rowLocked = log.equals("jdbc") && failure.contains("could not be claimed") && failure.contains("55P03");
        assertTrue(rowLocked, "B must take over while A is stopped\n" + b.output());
        findings.add("B's claim waited for the row lock of A's stopped log writer: " + failure);
      } else {
        assertTrue(bStarted, "B did not commit while A is stopped\n" + b.output());
      }
      a.signal("CONT"); // while B runs
      boolean aEnded = a.awaitExit(Duration.ofSeconds(30));
      outputs.add(a.output());
      assertTrue(aEnded, "A must stop within 30 s of its resumption\n" + a.output());
      List<String> after = a.lines().subList(stoppedAt, a.lineCount());
      System.out.println("A after SIGCONT: " + after);
      assertEquals(List.of(), after.stream()
          .filter(l -> l.startsWith(TakeoverJob.DECIDED) || l.startsWith(TakeoverJob.COMMITTED)
              || l.startsWith(TakeoverJob.FINISHED))
          .toList(), "A decided or committed after B claimed the coordinator\n" + a.output());
      String aFailure = after.stream().filter(l -> l.startsWith(TakeoverJob.FAILED)).findFirst().orElse("");
      assertTrue(aFailure.contains("FencedException"), "A must stop as fenced\n" + a.output());

      boolean bEnded = b.awaitExit(TIMEOUT);
      outputs.add(b.output());
      assertTrue(bEnded, "B did not end within " + TIMEOUT + "\n" + b.output());
      if (rowLocked) {
        try (ChildJob b2 = ChildJob.start("B2", base.withOwner("B2", dir.resolve("local-B2").toString(), "none",
            true, 0))) {
          boolean ended = b2.awaitExit(TIMEOUT);
          outputs.add(b2.output());
          assertTrue(ended && b2.exitCode() == 0, "B2 must finish once A is gone\n" + b2.output());
        }
      } else {
        assertEquals(0, b.exitCode(), "B must finish although the zombie ran beside it\n" + b.output());
      }
      b.close();
    }
    System.out.println("zombie findings (" + log + "): " + findings);
    assertEquals(List.of(), Checker.check(base, servers), String.join("\n----\n", outputs));
  }

  /**
   * The zombie against a decision of the new owner: B is paused right after its second decision
   * is durable, before its commit; then A is resumed. A's next step meets a fenced resource or log
   * (its Kafka producer was fenced, its next append is refused) and A stops; whatever it aborts on
   * its way out is of its own epoch, never B's decided transaction (the Kafka participant's ids
   * carry the owner epoch; the database and file names do too): B's commit must go through, with
   * every record once. With files, PostgreSQL and Kafka.
   */
  @Test
  void aResumedZombieDoesNotUndoTheNewOwnersDecision(@TempDir Path dir) throws Exception {
    String participants = JobArgs.ALL;
    int decision = 2; // B's transaction of its second decision is on the id A's new producer takes
    String id = "zombiedecision" + decision + participants.length();
    Path shared = Files.createDirectories(dir.resolve("shared"));
    String topic = "orders-" + id;
    String table = "orders_" + id;
    servers.createTopic(topic);
    servers.createTable(table);
    JobArgs base = new JobArgs("A", id, TakeoverIT.logSpec("kafka", shared, servers, id), false,
        shared.resolve("out").toString(), dir.resolve("local-A").toString(), servers.pgUrl(), table,
        servers.bootstrap(), topic, "tx-" + id + "-", RECORDS, EVERY, DELAY_MILLIS, "none", participants);
    List<String> outputs = new ArrayList<>();
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
        assertTrue(aEnded, "A must stop within 30 s of its resumption\n" + a.output());
        List<String> after = a.lines().subList(stoppedAt, a.lineCount());
        assertEquals(List.of(), after.stream()
            .filter(l -> l.startsWith(TakeoverJob.DECIDED) || l.startsWith(TakeoverJob.COMMITTED))
            .toList(), "A decided or committed after B claimed the coordinator\n" + a.output());
        Files.createFile(localB.resolve(StopAtPoint.RESUME));
        boolean bEnded = b.awaitExit(TIMEOUT);
        outputs.add(b.output());
        assertTrue(bEnded, b.output());
        assertEquals(0, b.exitCode(), "B must finish after the zombie's resumption\n" + b.output());
      }
    }
    assertEquals(List.of(), Checker.check(base, servers), String.join("\n----\n", outputs));
  }
}
