package dev.twophase.internal.log;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StateLogCorruptedException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogInspectorTest {

  @TempDir Path tmp;

  @Test
  void readsALogWhileItsOwnerIsLive() {
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      CoordinatorLog a = log.open("a");
      CoordinatorLog b = log.open("b");
      a.appendState(3, "a3".getBytes(UTF_8));
      a.appendCompletion(2);
      b.appendCompletion(5);

      LogSnapshot s = LogInspector.read(tmp);
      assertEquals(1, s.ownerEpoch());
      assertEquals(tmp.toAbsolutePath().normalize(), s.directory());
      assertEquals(1, s.segments().size());
      LogSnapshot.Segment seg = s.segments().get(0);
      assertEquals(1, seg.sequence());
      assertEquals(TestLogs.size(TestLogs.lastSegment(tmp)), seg.sizeBytes());
      assertEquals(4, seg.records()); // OWNER, STATE, COMPLETED, COMPLETED
      assertEquals(seg.sizeBytes(), s.totalBytes());
      assertEquals(List.of("a", "b"), List.copyOf(s.coordinators().keySet()));
      LogSnapshot.Coordinator ca = s.coordinators().get("a");
      assertEquals(3, ca.lastState().checkpointId());
      assertEquals(1, ca.lastState().epoch());
      assertArrayEquals("a3".getBytes(UTF_8), ca.lastState().payload());
      assertEquals(2, ca.lastCompletedCheckpointId());
      LogSnapshot.Coordinator cb = s.coordinators().get("b");
      assertNull(cb.lastState());
      assertFalse(cb.lastStateIfAny().isPresent());
      assertEquals(5, cb.lastCompletedCheckpointId());
      assertFalse(s.tailInProgress().isPresent());

      // the owner keeps working: the inspector took no lock
      a.appendState(4, "a4".getBytes(UTF_8));
      log.compact();
      LogSnapshot after = LogInspector.read(tmp);
      assertEquals(2, after.segments().get(0).sequence());
      assertEquals(4, after.coordinators().get("a").lastState().checkpointId());
    }
  }

  /**
   * The inspector reads while the owner appends into the zeros it wrote ahead (default settings):
   * bytes the inspector read as zeros may be a record by the time it looks further, which must
   * make it read again, never report damage. Appends and compactions race with 300 reads.
   */
  @Test
  void readsABusyLogWithoutReportingDamage() throws Exception {
    try (FileStateLog log = FileStateLog.builder(tmp).segmentBytes(256 * 1024).build()) {
      CoordinatorLog a = log.open("a");
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong appended = new java.util.concurrent.atomic.AtomicLong();
      Thread writer = new Thread(() -> {
        byte[] payload = new byte[300];
        for (long id = 1; !stop.get(); id++) {
          a.appendState(id, payload);
          a.appendCompletion(id - 1);
          appended.set(id);
        }
      });
      writer.start();
      try {
        long last = 0;
        for (int i = 0; i < 300; i++) {
          LogSnapshot s = LogInspector.read(tmp);
          LogSnapshot.Coordinator c = s.coordinators().get("a");
          long seen = c == null || c.lastState() == null ? 0 : c.lastState().checkpointId();
          assertTrue(seen >= last, "went back from " + last + " to " + seen);
          last = seen;
        }
        assertTrue(appended.get() > 0);
      } finally {
        stop.set(true);
        writer.join();
      }
    }
  }

  @Test
  void anIncompleteTailIsReportedNotCutOff() throws Exception {
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      log.open("a").appendState(1, "one".getBytes(UTF_8));
    }
    Path seg = TestLogs.lastSegment(tmp);
    long size = TestLogs.size(seg);
    byte[] record = TestLogs.frame(new byte[50]);
    TestLogs.append(seg, java.util.Arrays.copyOf(record, 14)); // an append still being written
    LogSnapshot s = LogInspector.read(tmp);
    assertTrue(s.tailInProgress().isPresent());
    TornTail tail = s.tailInProgress().get();
    assertEquals(seg.toAbsolutePath().normalize(), tail.file());
    assertEquals(size, tail.offset());
    assertEquals(14, tail.bytes());
    assertFalse(tail.headerIncomplete());
    assertEquals(1, s.coordinators().get("a").lastState().checkpointId());
    assertEquals(size + 14, TestLogs.size(seg), "nothing truncated");

    // an incomplete new segment is reported too (segment 1 is complete then: it was synced first)
    TestLogs.truncate(seg, size);
    Files.write(tmp.resolve(LogFormat.segmentFileName(2)), new byte[] {'T', 'W'});
    LogSnapshot s2 = LogInspector.read(tmp);
    assertTrue(s2.tailInProgress().get().headerIncomplete());
    assertEquals(2, s2.segments().size());
    assertTrue(Files.exists(tmp.resolve(LogFormat.segmentFileName(2))));
  }

  @Test
  void corruptionBeforeTheTailThrows() throws Exception {
    long s0;
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, "one".getBytes(UTF_8));
      s0 = TestLogs.size(TestLogs.lastSegment(tmp));
      a.appendState(2, "two".getBytes(UTF_8));
      a.appendState(3, "three".getBytes(UTF_8));
    }
    TestLogs.flipBit(TestLogs.lastSegment(tmp), s0 + 17, 4);
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> LogInspector.read(tmp));
    assertEquals(s0, e.offset());
  }

  @Test
  void emptyAndMissingDirectories() {
    LogSnapshot empty = LogInspector.read(tmp);
    assertEquals(0, empty.ownerEpoch());
    assertTrue(empty.segments().isEmpty());
    assertTrue(empty.coordinators().isEmpty());
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> LogInspector.read(tmp.resolve("missing")));
    assertTrue(e.getCause() instanceof NoSuchFileException);
    assertFalse(Files.exists(tmp.resolve("missing")));
  }
}
