package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.crash.ChildJvm;
import dev.twophase.testing.CrashInjector;
import dev.twophase.internal.log.LogChildMain;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import dev.twophase.internal.log.TestLogs.ChildResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ownership across processes, and crashes injected in a child JVM. */
class FileStateLogProcessTest {

  @TempDir Path tmp;

  private static String crashAt(ProtocolPoint point, int hit) {
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

  /**
   * The child halts at {@link ProtocolPoint#DURING_LOG_APPEND} of its third append: the record of
   * checkpoint 3 is written, not synced. A killed process keeps it (the page cache survives); a
   * power loss may keep only part of it, which the test models by cutting the file inside the
   * record, found with the public view. Either way the log opens and nothing acknowledged is lost.
   */
  @Test
  void crashInTheMiddleOfAnAppendLeavesATornRecordThatIsCutOff() throws Exception {
    Path crashed = tmp.resolve("crashed");
    ChildResult child =
        TestLogs.runChild(
            LogChildMain.class,
            List.of(crashAt(ProtocolPoint.DURING_LOG_APPEND, 3)),
            "append",
            crashed.toString());
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), child.output());
    StateLogSnapshot.State third =
        FileStateLog.inspect(crashed).coordinator("a").orElseThrow().lastState().orElseThrow();
    assertEquals(3, third.checkpointId(), "written whole before the halt");
    StateLogSnapshot.RecordPosition at = third.position();

    // a power loss in the middle of the append: the record cut at its start, middle and end, with
    // nothing after it or with the zeros written ahead after it
    int cases = 0;
    for (long cut : new long[] {at.offset() + 1, at.offset() + at.length() / 2, at.end() - 1}) {
      for (boolean zeros : new boolean[] {false, true}) {
        Path dir = TestLogs.copyDir(crashed, tmp.resolve("torn-" + cut + "-" + zeros));
        Path file = dir.resolve(at.file().getFileName());
        if (zeros) {
          TestLogs.zero(file, cut, at.end());
        } else {
          TestLogs.truncate(file, cut);
        }
        try (FileStateLog log = FileStateLog.open(dir)) {
          assertEquals(2, log.ownerEpoch());
          CoordinatorLog a = log.open("a");
          assertEquals(new StoredState(2, "state-2".getBytes(UTF_8)), a.lastState(), "cut at " + cut);
          assertEquals(2, a.lastCompletedCheckpointId());
          a.appendState(3, "state-3-again".getBytes(UTF_8));
        }
        try (FileStateLog log = FileStateLog.open(dir)) {
          assertEquals(new StoredState(3, "state-3-again".getBytes(UTF_8)), log.open("a").lastState());
        }
        cases++;
      }
    }
    assertEquals(6, cases);

    // as the killed process left it: the record of checkpoint 3 is there
    try (FileStateLog log = FileStateLog.open(crashed)) {
      assertEquals(new StoredState(3, "state-3".getBytes(UTF_8)), log.open("a").lastState());
    }
  }

  /**
   * The child halts at {@link ProtocolPoint#DURING_COMPACTION}: the new segment is written, not
   * synced, and the old one is still there. A power loss keeps a prefix of the new segment: cut
   * inside its header, after its OWNER record, inside each coordinator's record (found with the
   * public view) or not at all, the log opens with every state, compacts and opens again.
   */
  @Test
  void crashDuringCompactionLosesNothing() throws Exception {
    Path crashed = tmp.resolve("crashed");
    ChildResult child =
        TestLogs.runChild(
            LogChildMain.class,
            List.of(crashAt(ProtocolPoint.DURING_COMPACTION, 1)),
            "compact",
            crashed.toString());
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), child.output());
    Path seg1 = crashed.resolve(LogFormat.segmentFileName(1));
    Path seg2 = crashed.resolve(LogFormat.segmentFileName(2));
    assertEquals(List.of(seg1, seg2), TestLogs.segments(crashed), "the old and the new segment");
    StateLogSnapshot snapshot = FileStateLog.inspect(crashed);
    long recordsEnd = snapshot.segments().get(1).recordsEnd();
    List<Long> cuts = new ArrayList<>(List.of(10L,
        (long) LogFormat.SEGMENT_HEADER_SIZE + LogFormat.ownerRecordSize(), recordsEnd / 2,
        recordsEnd));
    for (StateLogSnapshot.Coordinator c : snapshot.coordinators().values()) {
      StateLogSnapshot.RecordPosition at = c.lastState().orElseThrow().position();
      assertEquals(seg2.getFileName(), at.file().getFileName(), "restated in the new segment");
      cuts.add(at.offset() + at.length() / 2);
    }
    assertEquals(10, cuts.size());
    for (long cut : cuts) {
      Path dir = TestLogs.copyDir(crashed, tmp.resolve("cut-" + cut));
      TestLogs.truncate(dir.resolve(seg2.getFileName()), cut);
      for (int round = 0; round < 2; round++) {
        try (FileStateLog log = FileStateLog.open(dir)) {
          assertEquals(2 + round, log.ownerEpoch());
          for (int i = 0; i < 6; i++) {
            CoordinatorLog c = log.open("c" + i);
            assertEquals(new StoredState(10, ("c" + i + "-10").getBytes(UTF_8)), c.lastState(),
                "c" + i + ", segment 2 cut at " + cut + ", round " + round);
            assertEquals(9, c.lastCompletedCheckpointId());
          }
          if (round == 0) {
            log.compact();
            assertEquals(1, TestLogs.segments(dir).size());
          }
        }
      }
    }
  }
}
