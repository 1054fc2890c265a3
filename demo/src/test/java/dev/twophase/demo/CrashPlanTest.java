package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ProtocolPoint;
import java.util.List;
import org.junit.jupiter.api.Test;

class CrashPlanTest {

  @Test
  void defaultHitLandsMidRun() {
    assertEquals(21, CrashPlan.checkpoints(200_000, 10_000));
    assertEquals(List.of(new CrashPlan.Crash(ProtocolPoint.AFTER_LOG_APPEND, 10)),
        CrashPlan.parse("AFTER_LOG_APPEND", 200_000, 10_000, 1).crashes());
    assertEquals(List.of(new CrashPlan.Crash(ProtocolPoint.BEFORE_PRE_COMMIT, 10)),
        CrashPlan.parse("before_pre_commit", 200_000, 10_000, 1).crashes());
    // The log's first synced append is the start-up record: hit 11 is checkpoint 10's decision.
    CrashPlan.Crash torn = CrashPlan.parse("during_log_append", 200_000, 10_000, 1).crashes().get(0);
    assertEquals(11, torn.hit());
    assertEquals(10, torn.checkpoint());
    assertTrue(torn.inLogWrite());
    CrashPlan compaction = CrashPlan.parse("DURING_COMPACTION", 200_000, 10_000, 1);
    assertEquals(2, compaction.crashes().get(0).hit());
    assertTrue(compaction.compacts());
  }

  @Test
  void betweenPointsAreReachedOncePerPairOfSinks() {
    // Four sinks: three BETWEEN_COMMITS hits per checkpoint. The default is checkpoint 10, after
    // the two file sinks.
    CrashPlan.Crash c = CrashPlan.parse("BETWEEN_COMMITS", 200_000, 10_000, 1).crashes().get(0);
    assertEquals(9 * 3 + 2, c.hit());
    assertEquals(10, c.checkpoint());
    assertEquals(2, c.sinksDone());
    assertTrue(c.meaning(true).startsWith("orders, ledger committed checkpoint 10, table, topic not yet"), c.meaning(true));
    CrashPlan.Crash first = CrashPlan.parse("BETWEEN_PRE_COMMITS:1", 200_000, 10_000, 1).crashes().get(0);
    assertEquals(1, first.checkpoint());
    assertEquals(1, first.sinksDone());
    CrashPlan.Crash third = CrashPlan.parse("BETWEEN_PRE_COMMITS:6", 200_000, 10_000, 1).crashes().get(0);
    assertEquals(2, third.checkpoint());
    assertEquals(3, third.sinksDone());
  }

  @Test
  void recoveryCrashNeedsSomethingToRecoverFirst() {
    List<CrashPlan.Crash> crashes = CrashPlan.parse("DURING_RECOVERY_COMMIT", 20_000, 1_000, 1).crashes();
    assertEquals(List.of(new CrashPlan.Crash(ProtocolPoint.AFTER_LOG_APPEND, 10),
        new CrashPlan.Crash(ProtocolPoint.DURING_RECOVERY_COMMIT, 1)), crashes);
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
