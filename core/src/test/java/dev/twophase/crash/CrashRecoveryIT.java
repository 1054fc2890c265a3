package dev.twophase.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.ProtocolPoint;
import dev.twophase.testing.CrashInjector;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills a child JVM at every {@link ProtocolPoint} of the protocol (SPEC.md, "Crash points every fault
 * test must cover") and checks, from the participants' files alone, that the next incarnation
 * recovers to a state where both participants show exactly the records of the decided checkpoints,
 * and that it then finishes with every input record visible exactly once.
 *
 * <p>A crash test passes only if the armed point actually halted the child (exit status
 * {@value CrashInjector#EXIT_CODE} and the point's log line); a child that ran to the end instead
 * fails the test.
 */
class CrashRecoveryIT {

  static final long N = 200;
  static final int K = 10;
  /** Small segments so the log compacts every few appends. */
  static final long SMALL_SEGMENTS = 4096;

  @TempDir Path tmp;

  static Stream<Arguments> crashes() {
    List<Arguments> cases = new ArrayList<>();
    for (ProtocolPoint point : ProtocolPoint.values()) {
      if (point == ProtocolPoint.DURING_RECOVERY_COMMIT) {
        continue; // needs something to recover first: see crashDuringRecoveryCommit
      }
      for (int hit : new int[] {1, 3}) {
        for (String mode : new String[] {"records", "explicit"}) {
          if (hit == 1 && mode.equals("explicit")) {
            continue; // one mode is enough for the first checkpoint
          }
          cases.add(Arguments.of(point, hit, mode));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}:{1} ({2})")
  @MethodSource("crashes")
  void crashThenRecover(ProtocolPoint point, int hit, String mode) throws Exception {
    boolean compaction = point == ProtocolPoint.DURING_COMPACTION;
    CrashScenario s = new CrashScenario(
        tmp, N, K, mode, compaction ? SMALL_SEGMENTS : 0, compaction ? 2 : 0);

    CrashScenario.Child crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point);
    checkReportIfAny(crashed);

    CrashScenario.Child clean = s.run(null);
    assertDone(clean);
    CrashChecker.RecoveryReport report = checkReport(clean);
    assertRestoredPosition(point, hit, report.position(), clean);
    assertFinal(s, clean);
  }

  /**
   * A crash while recovery commits a decided checkpoint, after a first crash right after the
   * decision (so checkpoint 3 is decided and nothing of it committed): the next recovery must
   * finish the job, exactly once, in both participants.
   */
  @ParameterizedTest(name = "DURING_RECOVERY_COMMIT:{0}")
  @ValueSource(ints = {1, 2})
  void crashDuringRecoveryCommit(int hit) throws Exception {
    CrashScenario s = new CrashScenario(tmp, N, K, "records", 0, 0);

    CrashScenario.Child first = s.run(ProtocolPoint.AFTER_LOG_APPEND + ":3");
    assertCrashedAt(first, ProtocolPoint.AFTER_LOG_APPEND);

    CrashScenario.Child during = s.run(ProtocolPoint.DURING_RECOVERY_COMMIT + ":" + hit);
    assertCrashedAt(during, ProtocolPoint.DURING_RECOVERY_COMMIT);
    assertFalse(during.recovered(), "the child crashed inside recovery, yet reported it recovered\n" + during.describe());

    CrashScenario.Child clean = s.run(null);
    assertDone(clean);
    CrashChecker.RecoveryReport report = checkReport(clean);
    assertEquals(3L * K, report.position(),
        "checkpoint 3 was decided before the first crash: the application must resume after it\n" + clean.describe());
    assertFinal(s, clean);
  }

  /**
   * A crash in the last checkpoint, the one {@code finish()} takes: no transaction is begun after
   * it. N = 205 with K = 10 gives checkpoints 1..20 by count and the finish checkpoint 21 with
   * inputs 200..204.
   */
  @ParameterizedTest(name = "{0} in the finish checkpoint")
  @ValueSource(strings = {"BEFORE_PRE_COMMIT", "BETWEEN_PRE_COMMITS", "AFTER_PRE_COMMITS", "DURING_LOG_APPEND",
      "AFTER_LOG_APPEND", "BETWEEN_COMMITS", "AFTER_COMMITS"})
  void crashInTheFinishCheckpoint(ProtocolPoint point) throws Exception {
    long n = 205;
    long checkpoints = n / K + 1;
    CrashScenario s = new CrashScenario(tmp, n, K, "records", 0, 0);
    long hit = point == ProtocolPoint.DURING_LOG_APPEND ? checkpoints + 1 : checkpoints; // + the start-up record

    CrashScenario.Child crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point);

    CrashScenario.Child clean = s.run(null);
    assertDone(clean);
    CrashChecker.RecoveryReport report = checkReport(clean);
    boolean decided = point.compareTo(ProtocolPoint.AFTER_LOG_APPEND) >= 0;
    assertEquals(decided ? n : (n / K) * K, report.position(),
        "the finish checkpoint was " + (decided ? "" : "not ") + "decided\n" + clean.describe());
    assertFinal(s, clean);
  }

  /** Several crashes at different points in a row, then a clean run. */
  @Test
  void crashesInARow() throws Exception {
    CrashScenario s = new CrashScenario(tmp, N, K, "records", SMALL_SEGMENTS, 1);
    List<String> points = List.of(
        ProtocolPoint.BETWEEN_PRE_COMMITS + ":2",
        ProtocolPoint.AFTER_LOG_APPEND + ":2",
        ProtocolPoint.DURING_RECOVERY_COMMIT + ":1",
        ProtocolPoint.DURING_LOG_APPEND + ":4",
        ProtocolPoint.BETWEEN_COMMITS + ":3",
        ProtocolPoint.AFTER_COMMITS + ":2");
    for (String p : points) {
      CrashScenario.Child c = s.run(p);
      assertCrashedAt(c, ProtocolPoint.valueOf(p.substring(0, p.indexOf(':'))));
      checkReportIfAny(c);
    }
    CrashScenario.Child clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    assertFinal(s, clean);
  }

  /** The harness itself: without a crash point the child runs to the end and the checker agrees. */
  @Test
  void cleanRunWithoutCrash() throws Exception {
    CrashScenario s = new CrashScenario(tmp, N, K, "records", SMALL_SEGMENTS, 1);
    CrashScenario.Child clean = s.run(null);
    assertDone(clean);
    CrashChecker.RecoveryReport report = checkReport(clean);
    assertEquals(0, report.position(), clean.describe());
    assertFinal(s, clean);
    // A second run over the finished output adds nothing.
    CrashScenario.Child again = s.run(null);
    assertDone(again);
    assertEquals(N, checkReport(again).position(), again.describe());
    assertFinal(s, again);
  }

  // ------------------------------------------------------------------ assertions

  static void assertCrashedAt(CrashScenario.Child child, ProtocolPoint point) {
    if (child.timedOut) {
      fail("child did not finish in time\n" + child.describe());
    }
    if (child.exitCode == 0) {
      fail("the crash point " + child.crashAt + " was never reached: the child ran to the end, so "
          + "this test proves nothing; pick a hit count that lands mid-run\n" + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode,
        "the child failed instead of crashing at " + child.crashAt + "\n" + child.describe());
    assertTrue(child.loggedCrashAt(point.name()),
        "exit status 86, but no 'crash injected at " + point + "' in the child's log\n" + child.describe());
  }

  static void assertDone(CrashScenario.Child child) {
    assertTrue(child.done(), "the clean child did not finish\n" + child.describe());
  }

  static CrashChecker.RecoveryReport checkReport(CrashScenario.Child child) throws IOException {
    assertTrue(child.recovered(), "the child wrote no recovery report\n" + child.describe());
    CrashChecker.RecoveryReport report = child.recoveryReport();
    CrashChecker.Findings f = CrashChecker.checkRecovery(report, "child #" + child.number);
    assertTrue(f.ok(), "right after recovery: " + f + "\n" + child.describe());
    return report;
  }

  static void checkReportIfAny(CrashScenario.Child child) throws IOException {
    if (child.recovered()) {
      checkReport(child);
    }
  }

  static void assertFinal(CrashScenario s, CrashScenario.Child last) throws IOException {
    CrashChecker.Findings f = CrashChecker.checkFinal(s.dataDir(), s.n(), "child #" + last.number);
    StringBuilder all = new StringBuilder();
    for (CrashScenario.Child c : s.children()) {
      all.append(c.describe()).append('\n');
    }
    assertTrue(f.ok(), "after the clean finish: " + f + "\n" + all);
  }

  /**
   * Where the application must resume after a crash at {@code point}'s {@code hit}-th hit, from the
   * protocol alone: checkpoint c covers inputs 0 .. c*K-1, and a checkpoint is decided exactly when
   * its record is durable.
   */
  static void assertRestoredPosition(ProtocolPoint point, int hit, long position, CrashScenario.Child child) {
    String msg = "restored position after a crash at " + point + ":" + hit + "\n" + child.describe();
    switch (point) {
      // Checkpoint `hit` was not decided: resume after checkpoint hit-1.
      case BEFORE_PRE_COMMIT, BETWEEN_PRE_COMMITS, AFTER_PRE_COMMITS -> assertEquals((hit - 1L) * K, position, msg);
      // Appends: 1 = the start-up record, h = checkpoint h-1, which is torn: resume after h-2.
      case DURING_LOG_APPEND -> assertEquals(Math.max(0, hit - 2L) * K, position, msg);
      // Checkpoint `hit` was decided: resume after it.
      case AFTER_LOG_APPEND -> assertEquals((long) hit * K, position, msg);
      // Commits run behind the decisions: checkpoint `hit` at least was decided.
      case BETWEEN_COMMITS, AFTER_COMMITS -> assertTrue(position >= (long) hit * K && position <= N, msg);
      default -> assertTrue(position >= 0 && position <= N && position % K == 0, msg);
    }
  }
}
