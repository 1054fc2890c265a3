package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.internal.CrashPoint;
import java.util.List;
import org.junit.jupiter.api.Test;

class CrashPlanTest {

  @Test
  void defaultHitLandsMidRun() {
    assertEquals(21, CrashPlan.checkpoints(200_000, 10_000));
    assertEquals(List.of(new CrashPlan.Crash(CrashPoint.AFTER_LOG_APPEND, 10)),
        CrashPlan.parse("AFTER_LOG_APPEND", 200_000, 10_000, 1).crashes());
    // The log's first append is the initial record: hit 11 is checkpoint 10's decision.
    CrashPlan.Crash torn = CrashPlan.parse("during_log_append", 200_000, 10_000, 1).crashes().get(0);
    assertEquals(11, torn.hit());
    assertEquals(10, torn.checkpoint());
  }

  @Test
  void recoveryCrashNeedsSomethingToRecoverFirst() {
    List<CrashPlan.Crash> crashes = CrashPlan.parse("DURING_RECOVERY_COMMIT", 20_000, 1_000, 1).crashes();
    assertEquals(List.of(new CrashPlan.Crash(CrashPoint.AFTER_LOG_APPEND, 10),
        new CrashPlan.Crash(CrashPoint.DURING_RECOVERY_COMMIT, 1)), crashes);
  }

  @Test
  void randomIsReproducibleAndMidRun() {
    for (long seed = 0; seed < 200; seed++) {
      CrashPlan.Crash c = CrashPlan.parse("random", 20_000, 1_000, seed).crashes().get(0);
      assertEquals(c, CrashPlan.parse("random", 20_000, 1_000, seed).crashes().get(0));
      assertTrue(CrashPlan.IN_RUN.contains(c.point()));
      assertTrue(c.checkpoint() >= 2 && c.checkpoint() <= 20, c.toString());
    }
  }

  @Test
  void badSpecsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> CrashPlan.parse("NOWHERE", 100, 10, 1));
    assertThrows(IllegalArgumentException.class, () -> CrashPlan.parse("AFTER_LOG_APPEND:0", 100, 10, 1));
    assertThrows(IllegalArgumentException.class, () -> CrashPlan.parse("AFTER_LOG_APPEND:x", 100, 10, 1));
    assertTrue(CrashPlan.parse("none", 100, 10, 1).crashes().isEmpty());
  }
}
