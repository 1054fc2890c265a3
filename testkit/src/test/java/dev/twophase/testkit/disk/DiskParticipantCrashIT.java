package dev.twophase.testkit.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ProtocolPoint;
import dev.twophase.testkit.crash.ChaosResult;
import dev.twophase.testkit.crash.Crash;
import dev.twophase.testkit.crash.CrashRun;
import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The crash harness on a correct participant, as a participant author would use it: every
 * coordinator protocol point and every point of the participant's own, in child JVMs, each
 * recovered in a new one; then random crashes. N = 50 records, a checkpoint every 10: five
 * checkpoints and the one {@code finish()} takes.
 */
class DiskParticipantCrashIT {

  static final long N = 50;
  static final int K = 10;

  @TempDir Path dir;

  private CrashTest crashTest() {
    return CrashTest.builder(DiskSubject.class).workDirectory(dir).records(N).checkpointEvery(K).build();
  }

  static List<CrashScenario> scenarios() {
    List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
    all.addAll(CrashScenario.atEach(DiskParticipant.POINTS, 1, 2));
    // the last checkpoint, the one finish() takes
    all.add(CrashScenario.of(Crash.at(ProtocolPoint.AFTER_LOG_APPEND, 6)));
    // crashes in a row, one inside a recovery's commit
    all.add(CrashScenario.of(Crash.at(ProtocolPoint.BETWEEN_COMMITS, 2), Crash.at(DiskParticipant.COMMIT_RENAMED, 1),
        Crash.at(DiskParticipant.PRE_COMMIT_WRITTEN, 2)));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void crashAndRecover(CrashScenario scenario) {
    crashTest().run(scenario);
  }

  /** The counts CrashTest's javadoc promises, for a child that runs from nothing to the end. */
  @Test
  void hitCountsOfACleanRun() {
    Map<String, Long> hits = crashTest().countHits();
    long checkpoints = N / K + 1;
    for (ProtocolPoint p : List.of(ProtocolPoint.BEFORE_PRE_COMMIT, ProtocolPoint.BETWEEN_PRE_COMMITS,
        ProtocolPoint.AFTER_PRE_COMMITS, ProtocolPoint.AFTER_LOG_APPEND, ProtocolPoint.BETWEEN_COMMITS,
        ProtocolPoint.AFTER_COMMITS)) {
      assertEquals(checkpoints, hits.get(p.name()), p + " in " + hits);
    }
    for (String p : DiskParticipant.POINTS) {
      assertEquals(checkpoints, hits.get(p), p + " in " + hits);
    }
    assertEquals(null, hits.get(ProtocolPoint.DURING_RECOVERY_COMMIT.name()), "nothing to recover: " + hits);
  }

  /** Where each child resumes follows from the protocol alone, with one pending checkpoint at most. */
  @Test
  void restoredPositionsFollowFromWhereTheCrashWas() {
    CrashTest test = crashTest();
    assertRestored(test.run(Crash.at(ProtocolPoint.AFTER_PRE_COMMITS, 3)), 20); // checkpoint 3 undecided
    assertRestored(test.run(Crash.at(ProtocolPoint.AFTER_LOG_APPEND, 3)), 30); // decided
    assertRestored(test.run(Crash.at(ProtocolPoint.BETWEEN_COMMITS, 3)), 30);  // decided, half committed
    assertRestored(test.run(Crash.at(DiskParticipant.PRE_COMMIT_WRITTEN, 3)), 20); // inside preCommit
  }

  private static void assertRestored(CrashRun run, long position) {
    assertEquals(CrashRun.Ending.CRASHED, run.children().get(0).ending());
    assertEquals(position, run.children().get(1).restoredPosition().orElseThrow(), run.scenario().name());
  }

  /**
   * Random crashes: three scenarios of seed 1 in the normal build, so that it stays repeatable;
   * {@code -Dchaos.seed=<n>} (or {@code random}) and {@code -Dchaos.scenarios=<n>} for a long run.
   */
  @Test
  void randomCrashes() {
    String seedProperty = System.getProperty("chaos.seed", "1").strip();
    long seed = seedProperty.equals("random") ? new Random().nextLong() : Long.parseLong(seedProperty);
    int scenarios = Integer.getInteger("chaos.scenarios", 3);
    System.out.println("chaos: seed " + seed + ", " + scenarios + " scenarios");
    ChaosResult result = crashTest().chaos(seed, scenarios);
    System.out.println("chaos: " + result);
    assertEquals(scenarios, result.scenarios());
    assertTrue(result.children() >= 2 * scenarios, result.toString());
  }
}
