package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.CrashPoint;
import dev.twophase.crash.ChildJvm;
import dev.twophase.testing.CrashInjector;
import dev.twophase.internal.log.LogChildMain;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import dev.twophase.internal.log.TestLogs.ChildResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ownership across processes, and crashes injected in a child JVM. */
class FileStateLogProcessTest {

  @TempDir Path tmp;

  private static String crashAt(CrashPoint point, int hit) {
    return "-D" + ChildJvm.CRASH_AT + "=" + point + ":" + hit;
  }

  @Test
  void secondProcessIsRefusedWhileTheParentOwnsTheLog() throws Exception {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      log.open("a").appendState(1, new byte[] {1});
      ChildResult child = TestLogs.runChild(LogChildMain.class, List.of(), "lock", tmp.toString());
      assertEquals(LogChildMain.FENCED, child.exitCode(), child.output());
      assertTrue(child.output().contains("FENCED"), child.output());
      assertTrue(child.output().contains("in use by another process"), child.output());
      // the owner is unaffected
      log.open("b").appendState(1, new byte[] {2});
    }
    ChildResult child = TestLogs.runChild(LogChildMain.class, List.of(), "lock", tmp.toString());
    assertEquals(0, child.exitCode(), child.output());
    assertTrue(child.output().contains("OPENED 2"), child.output());
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(3, log.ownerEpoch());
    }
  }

  @Test
  void aRefusedSecondOpenInThisJvmDoesNotDropTheOwnersLock() throws Exception {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      // On POSIX, closing any channel on LOCK would drop this process's lock on it.
      for (int i = 0; i < 3; i++) {
        assertThrows(FencedException.class, () -> FileStateLog.open(tmp));
      }
      ChildResult child = TestLogs.runChild(LogChildMain.class, List.of(), "lock", tmp.toString());
      assertEquals(LogChildMain.FENCED, child.exitCode(), child.output());
      log.open("a").appendState(1, new byte[] {1});
    }
  }

  /** What the log writes goes to the public logger name users configure, never an internal one. */
  @Test
  void warningsUseThePublicLoggerName() throws Exception {
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      log.open("a").appendState(1, new byte[] {1});
    }
    TestLogs.append(TestLogs.lastSegment(tmp), new byte[] {0, 0, 0, 40, 1, 2}); // a torn frame
    ChildResult child = TestLogs.runChild(LogChildMain.class, List.of(), "open", tmp.toString());
    assertEquals(0, child.exitCode(), child.output());
    assertTrue(child.output().contains("WARN dev.twophase.FileStateLog - Cut off the torn tail"),
        child.output());
    assertFalse(child.output().contains("dev.twophase.internal"), child.output());
  }

  @Test
  void crashInTheMiddleOfAnAppendLeavesATornRecordThatIsCutOff() throws Exception {
    ChildResult child =
        TestLogs.runChild(
            LogChildMain.class,
            List.of(crashAt(CrashPoint.DURING_LOG_APPEND, 3)),
            "append",
            tmp.toString());
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), child.output());
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(2, log.ownerEpoch());
      CoordinatorLog a = log.open("a");
      assertEquals(new StoredState(2, "state-2".getBytes(UTF_8)), a.lastState());
      assertEquals(2, a.lastCompletedCheckpointId());
      a.appendState(3, "state-3-again".getBytes(UTF_8));
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(new StoredState(3, "state-3-again".getBytes(UTF_8)), log.open("a").lastState());
    }
  }

  @Test
  void crashDuringCompactionLosesNothing() throws Exception {
    ChildResult child =
        TestLogs.runChild(
            LogChildMain.class,
            List.of(crashAt(CrashPoint.DURING_COMPACTION, 1)),
            "compact",
            tmp.toString());
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), child.output());
    // the old segment and the partly written new one are both there
    assertEquals(
        List.of(tmp.resolve(LogFormat.segmentFileName(1)), tmp.resolve(LogFormat.segmentFileName(2))),
        TestLogs.segments(tmp));
    for (int round = 0; round < 2; round++) {
      try (FileStateLog log = FileStateLog.open(tmp)) {
        assertEquals(2 + round, log.ownerEpoch());
        for (int i = 0; i < 6; i++) {
          CoordinatorLog c = log.open("c" + i);
          assertEquals(new StoredState(10, ("c" + i + "-10").getBytes(UTF_8)), c.lastState());
          assertEquals(9, c.lastCompletedCheckpointId());
        }
        if (round == 0) {
          log.compact();
          assertEquals(List.of(tmp.resolve(LogFormat.segmentFileName(3))), TestLogs.segments(tmp));
        }
      }
    }
  }
}
