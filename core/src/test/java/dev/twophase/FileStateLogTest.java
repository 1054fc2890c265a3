package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStateLogTest {

  @TempDir Path tmp;

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void firstOpenOfEmptyDirectoryHasEpochOneAndNothingStored() {
    Path dir = tmp.resolve("a/b/log");
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals(1, log.ownerEpoch());
      assertTrue(Files.isDirectory(dir));
      assertTrue(Files.exists(dir.resolve("LOCK")));
      assertEquals(List.of(dir.resolve("segment-00000000000000000001.log")), TestLogs.segments(dir));
      try (CoordinatorLog c = log.open("c")) {
        assertEquals("c", c.coordinatorId());
        assertEquals(1, c.ownerEpoch());
        assertNull(c.lastState());
        assertEquals(0, c.lastCompletedCheckpointId());
      }
    }
  }

  @Test
  void roundTripOfSeveralCoordinatorsAndEpochIncreasesOnEachReopen() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      CoordinatorLog b = log.open("b");
      CoordinatorLog c = log.open("ü-coordinator-\u4e2d");
      a.appendState(0, bytes("a0"));
      b.appendState(5, bytes("b5"));
      a.appendState(1, bytes("a1"));
      a.appendCompletion(1);
      b.appendCompletion(3);
      b.appendState(5, bytes("b5-again"));
      c.appendState(7, new byte[0]);
      a.appendState(2, bytes("a2"));
      // visible in the view right away
      assertEquals(new StoredState(2, bytes("a2")), a.lastState());
      assertEquals(1, a.lastCompletedCheckpointId());
    }
    for (long epoch = 2; epoch <= 4; epoch++) {
      try (FileStateLog log = FileStateLog.open(tmp)) {
        assertEquals(epoch, log.ownerEpoch());
        CoordinatorLog a = log.open("a");
        assertEquals(epoch, a.ownerEpoch());
        assertEquals(new StoredState(2, bytes("a2")), a.lastState());
        assertEquals(1, a.lastCompletedCheckpointId());
        CoordinatorLog b = log.open("b");
        assertEquals(new StoredState(5, bytes("b5-again")), b.lastState());
        assertEquals(3, b.lastCompletedCheckpointId());
        CoordinatorLog c = log.open("ü-coordinator-\u4e2d");
        assertEquals(new StoredState(7, new byte[0]), c.lastState());
        assertEquals(0, c.lastCompletedCheckpointId());
        CoordinatorLog unknown = log.open("unknown");
        assertNull(unknown.lastState());
      }
    }
  }

  @Test
  void completionMarksKeepTheHighestAndNeedNoState() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      a.appendCompletion(4);
      a.appendCompletion(2);
      assertEquals(4, a.lastCompletedCheckpointId());
      assertNull(a.lastState());
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(4, log.open("a").lastCompletedCheckpointId());
    }
  }

  @Test
  void payloadIsCopiedOnAppendAndOnRead() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      byte[] payload = bytes("original");
      a.appendState(1, payload);
      payload[0] = 'X';
      assertArrayEquals(bytes("original"), a.lastState().payload());
      log.compact();
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertArrayEquals(bytes("original"), log.open("a").lastState().payload());
    }
  }

  @Test
  void lowerCheckpointIdIsRefusedNamingBothIds() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      a.appendState(7, bytes("x"));
      a.appendState(7, bytes("same id again is fine"));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> a.appendState(6, bytes("y")));
      assertTrue(e.getMessage().contains("6") && e.getMessage().contains("7"), e.getMessage());
      assertTrue(e.getMessage().contains("'a'"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> a.appendState(-1, bytes("y")));
      assertThrows(IllegalArgumentException.class, () -> a.appendCompletion(-1));
      assertThrows(NullPointerException.class, () -> a.appendState(8, null));
    }
    // also across a reopen: the id read from the log counts
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      assertThrows(IllegalArgumentException.class, () -> a.appendState(3, bytes("y")));
      a.appendState(8, bytes("z"));
    }
  }

  @Test
  void secondOpenOfSameCoordinatorIsRefusedUntilTheViewIsClosed() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, bytes("one"));
      FencedException e = assertThrows(FencedException.class, () -> log.open("a"));
      assertTrue(e.getMessage().contains("'a'"), e.getMessage());
      a.close();
      a.close(); // idempotent
      FencedException closedView =
          assertThrows(FencedException.class, () -> a.appendState(2, bytes("two")));
      assertTrue(closedView.getMessage().contains("closed"), closedView.getMessage());
      CoordinatorLog again = log.open("a");
      assertEquals(new StoredState(1, bytes("one")), again.lastState());
      again.appendState(2, bytes("two"));
    }
  }

  @Test
  void coordinatorIdIsValidated() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertThrows(NullPointerException.class, () -> log.open((String) null));
      IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> log.open(""));
      assertTrue(empty.getMessage().contains("coordinatorId"), empty.getMessage());
      IllegalArgumentException tooLong =
          assertThrows(IllegalArgumentException.class, () -> log.open("é".repeat(128)));
      assertTrue(tooLong.getMessage().contains("255") && tooLong.getMessage().contains("256"),
          tooLong.getMessage());
      assertThrows(IllegalArgumentException.class, () -> log.open("bad\uD800"));
      String max = "x".repeat(255);
      log.open(max).appendState(1, bytes("m"));
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(1, log.open("x".repeat(255)).lastState().checkpointId());
    }
  }

  @Test
  void builderValidatesSegmentBytes() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FileStateLog.builder(tmp).segmentBytes(12));
    assertEquals("segmentBytes must be >= 4096, was 12", e.getMessage());
    assertThrows(NullPointerException.class, () -> FileStateLog.builder(null));
    try (FileStateLog log = FileStateLog.builder(tmp).segmentBytes(4096).build()) {
      assertEquals(4096, log.segmentBytes());
      assertEquals(tmp.toAbsolutePath().normalize(), log.directory());
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(FileStateLog.DEFAULT_SEGMENT_BYTES, log.segmentBytes());
    }
  }

  @Test
  void secondOwnerInTheSameJvmIsRefused() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      FencedException e = assertThrows(FencedException.class, () -> FileStateLog.open(tmp));
      assertTrue(e.getMessage().contains("in use"), e.getMessage());
      assertTrue(e.getMessage().contains("another directory"), e.getMessage());
      // the first owner is unaffected
      log.open("a").appendState(1, bytes("x"));
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(2, log.ownerEpoch());
    }
  }

  @Test
  void anotherPathToTheSameDirectoryIsTheSameOwner() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("real"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), dir);
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertThrows(FencedException.class, () -> FileStateLog.open(link));
      assertThrows(FencedException.class, () -> FileStateLog.open(dir.resolve("../real")));
      log.open("a").appendState(1, bytes("x"));
    }
    try (FileStateLog log = FileStateLog.open(link)) {
      assertEquals(2, log.ownerEpoch());
    }
  }

  @Test
  void appendsAfterCloseFailClearly() {
    FileStateLog log = FileStateLog.open(tmp);
    CoordinatorLog a = log.open("a");
    a.appendState(1, bytes("x"));
    log.close();
    log.close(); // idempotent
    FencedException e = assertThrows(FencedException.class, () -> a.appendState(2, bytes("y")));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertEquals(2, e.checkpointId().getAsLong());
    assertThrows(FencedException.class, () -> a.appendCompletion(1));
    assertThrows(FencedException.class, () -> log.open("b"));
    assertThrows(FencedException.class, log::compact);
    // what was read stays readable
    assertEquals(1, a.lastState().checkpointId());
    a.close();
  }

  @Test
  void explicitCompactionKeepsStateAndDeletesOldSegments() {
    Map<String, StoredState> expected = new HashMap<>();
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      CoordinatorLog[] views = new CoordinatorLog[3];
      for (int c = 0; c < 3; c++) {
        CoordinatorLog v = log.open("c" + c);
        views[c] = v;
        for (int i = 1; i <= 10; i++) {
          v.appendState(i, bytes("c" + c + "-" + i));
          v.appendCompletion(i - 1);
        }
        expected.put("c" + c, new StoredState(10, bytes("c" + c + "-10")));
      }
      log.open("empty"); // opened, nothing appended: not written by compaction
      long before = TestLogs.totalSize(tmp);
      log.compact();
      assertEquals(List.of(tmp.resolve(LogFormat.segmentFileName(2))), TestLogs.segments(tmp));
      assertTrue(TestLogs.totalSize(tmp) < before);
      for (int c = 0; c < 3; c++) {
        assertEquals(expected.get("c" + c), views[c].lastState());
        assertEquals(9, views[c].lastCompletedCheckpointId());
      }
      log.compact();
      assertEquals(List.of(tmp.resolve(LogFormat.segmentFileName(3))), TestLogs.segments(tmp));
    }
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      assertEquals(2, log.ownerEpoch());
      for (int c = 0; c < 3; c++) {
        CoordinatorLog v = log.open("c" + c);
        assertEquals(expected.get("c" + c), v.lastState());
        assertEquals(9, v.lastCompletedCheckpointId());
      }
      assertNull(log.open("empty").lastState());
    }
  }

  @Test
  void automaticCompactionBoundsTheLogSize() {
    long segmentBytes = 64 * 1024;
    Random random = new Random(7);
    Map<String, StoredState> expected = new HashMap<>();
    Map<String, Long> completed = new HashMap<>();
    long maxTotal = 0;
    // Durability is not under test here: skip the fdatasyncs to keep 10,000 appends quick.
    try (FileStateLog log =
        FileStateLog.builder(tmp).segmentBytes(segmentBytes).syncer(ch -> {}).build()) {
      CoordinatorLog[] views = new CoordinatorLog[4];
      for (int c = 0; c < views.length; c++) {
        views[c] = log.open("coordinator-" + c);
      }
      for (int i = 1; i <= 10_000; i++) {
        int c = random.nextInt(views.length);
        String id = "coordinator-" + c;
        if (i % 4 == 0) {
          views[c].appendCompletion(i);
          completed.put(id, (long) i);
        } else {
          byte[] payload = new byte[random.nextInt(200)];
          random.nextBytes(payload);
          views[c].appendState(i, payload);
          expected.put(id, new StoredState(i, payload));
        }
        if (i % 500 == 0) {
          assertTrue(TestLogs.segments(tmp).size() < 3);
          maxTotal = Math.max(maxTotal, TestLogs.totalSize(tmp));
        }
      }
      assertTrue(log.stats().compactions() > 10, "compactions: " + log.stats().compactions());
    }
    assertTrue(TestLogs.segments(tmp).size() < 3, TestLogs.segments(tmp).toString());
    assertTrue(maxTotal <= segmentBytes + 1024, "max total size " + maxTotal);
    assertTrue(TestLogs.totalSize(tmp) <= segmentBytes + 1024);
    try (FileStateLog log = FileStateLog.open(tmp)) {
      for (int c = 0; c < 4; c++) {
        String id = "coordinator-" + c;
        CoordinatorLog v = log.open(id);
        assertEquals(expected.get(id), v.lastState());
        assertEquals(completed.getOrDefault(id, 0L), v.lastCompletedCheckpointId());
      }
    }
  }

  @Test
  void liveStateLargerThanTheSegmentSizeDoesNotCompactOnEveryAppend() {
    byte[] big = new byte[3000];
    try (FileStateLog log = FileStateLog.builder(tmp).segmentBytes(4096).build()) {
      for (int c = 0; c < 4; c++) {
        log.open("c" + c).appendState(1, big); // live state: ~12 KB > 4096
      }
      CoordinatorLog c0 = log.open("more");
      for (int i = 1; i <= 100; i++) {
        c0.appendState(i, bytes("small-" + i));
      }
      assertTrue(log.stats().compactions() < 10, "compactions: " + log.stats().compactions());
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertEquals(3000, log.open("c3").lastState().payload().length);
      assertEquals(100, log.open("more").lastState().checkpointId());
    }
  }

  @Test
  void largePayloadsRoundTrip() {
    Random random = new Random(3);
    byte[] payload = new byte[5 * 1024 * 1024];
    random.nextBytes(payload);
    try (FileStateLog log = FileStateLog.open(tmp)) {
      log.open("big").appendState(1, payload);
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog v = log.open("big");
      assertArrayEquals(payload, v.lastState().payload());
      log.compact();
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertArrayEquals(payload, log.open("big").lastState().payload());
    }
  }

  @Test
  void anInterruptedThreadCanAppendAndKeepsItsInterruptFlag() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      Thread.currentThread().interrupt();
      try {
        a.appendState(1, bytes("while interrupted"));
        a.appendCompletion(1);
        log.compact();
        assertTrue(Thread.currentThread().isInterrupted());
      } finally {
        Thread.interrupted();
      }
      a.appendState(2, bytes("after"));
    }
    try (FileStateLog log = FileStateLog.open(tmp)) {
      CoordinatorLog a = log.open("a");
      assertEquals(new StoredState(2, bytes("after")), a.lastState());
      assertEquals(1, a.lastCompletedCheckpointId());
    }
  }

  @Test
  void statsCountAppendsSyncsAndCompactions() {
    FileStateLog log = TestLogs.openExact(tmp);
    StateLogStats atOpen = log.stats();
    assertEquals(0, atOpen.stateAppends());
    assertTrue(atOpen.syncs() >= 1, "creating the first segment syncs it: " + atOpen);
    CoordinatorLog a = log.open("a");
    CoordinatorLog b = log.open("b");
    a.appendState(1, bytes("one"));
    b.appendState(1, bytes("uno"));
    a.appendCompletion(1);
    a.appendCompletion(1); // raises nothing: not written, not counted
    StateLogStats s = log.stats().minus(atOpen);
    assertEquals(2, s.stateAppends());
    assertEquals(1, s.completionMarks());
    assertEquals(2 * LogFormat.stateRecordSize(1, 3) + LogFormat.completedRecordSize(1),
        s.appendedBytes());
    assertEquals(2, s.syncs(), "one per state append on one thread, none for the mark");
    assertEquals(1.0, s.appendsPerSync());
    assertEquals(0, s.compactions());
    assertEquals(0, s.standbyTakeovers());
    log.compact();
    assertEquals(1, log.stats().compactions());
    log.close();
    StateLogStats closed = log.stats();
    assertEquals(closed, log.stats(), "no change after close");
    assertEquals(2, closed.stateAppends());
  }

  @Test
  void toStringNamesTheDirectory() {
    try (FileStateLog log = FileStateLog.open(tmp)) {
      assertTrue(log.toString().contains(tmp.getFileName().toString()));
      assertNotNull(log.open("a").toString());
    }
    FileStateLog log = FileStateLog.open(tmp);
    log.close();
    assertTrue(log.toString().contains("closed"));
    assertFalse(Files.exists(tmp.resolve("segment-00000000000000000002.log")));
  }
}
