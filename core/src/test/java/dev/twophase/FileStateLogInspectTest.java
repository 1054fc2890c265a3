package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileStateLog#inspect}: the public, read-only view of a log, safe on a live one. */
class FileStateLogInspectTest {

  @TempDir Path tmp;

  @Test
  void readsALogWhileItsOwnerIsLive() {
    try (FileStateLog log = TestLogs.openExact(tmp)) {
      CoordinatorLog a = log.open("a");
      CoordinatorLog b = log.open("b");
      a.appendState(3, "a3".getBytes(UTF_8));
      a.appendCompletion(2);
      b.appendCompletion(5);

      StateLogSnapshot s = FileStateLog.inspect(tmp);
      assertEquals(log.logId(), s.logId());
      assertEquals(1, s.ownerEpoch());
      assertEquals(tmp.toAbsolutePath().normalize(), s.directory());
      assertEquals(1, s.segments().size());
      StateLogSnapshot.Segment seg = s.segments().get(0);
      assertEquals(1, seg.sequence());
      assertEquals(TestLogs.size(TestLogs.lastSegment(tmp)), seg.sizeBytes());
      assertEquals(4, seg.records()); // OWNER, STATE, COMPLETED, COMPLETED
      assertEquals(TestLogs.recordsEnd(tmp), seg.recordsEnd());
      assertEquals(seg.sizeBytes(), s.totalBytes());
      assertEquals(List.of("a", "b"), List.copyOf(s.coordinators().keySet()));
      StateLogSnapshot.Coordinator ca = s.coordinator("a").orElseThrow();
      StateLogSnapshot.State state = ca.lastState().orElseThrow();
      assertEquals(3, state.checkpointId());
      assertEquals(1, state.epoch());
      assertArrayEquals("a3".getBytes(UTF_8), state.payload());
      assertEquals(2, ca.lastCompletedCheckpointId());
      // the header and the OWNER record come first, then a's STATE record
      StateLogSnapshot.RecordPosition at = state.position();
      assertEquals(seg.file(), at.file());
      assertEquals(LogFormat.SEGMENT_HEADER_SIZE + LogFormat.ownerRecordSize(), at.offset());
      assertEquals(LogFormat.stateRecordSize(1, 2), at.length());
      StateLogSnapshot.Coordinator cb = s.coordinator("b").orElseThrow();
      assertFalse(cb.lastState().isPresent());
      assertEquals(5, cb.lastCompletedCheckpointId());
      assertFalse(s.tailInProgress().isPresent());
      assertFalse(s.coordinator("c").isPresent());

      // the owner keeps working: the view took no lock
      a.appendState(4, "a4".getBytes(UTF_8));
      log.compact();
      StateLogSnapshot after = FileStateLog.inspect(tmp);
      assertEquals(2, after.segments().get(0).sequence());
      StateLogSnapshot.State a4 = after.coordinator("a").orElseThrow().lastState().orElseThrow();
      assertEquals(4, a4.checkpointId());
      assertEquals(after.segments().get(0).file(), a4.position().file());
    }
  }

  /**
   * The view reads while the owner appends into the zeros it wrote ahead (default settings):
   * bytes it read as zeros may be a record by the time it looks further, which must make it read
   * again, never report damage. Appends and compactions race with 300 reads.
   */
  @Test
  void readsABusyLogWithoutReportingDamage() throws Exception {
    try (FileStateLog log = FileStateLog.builder(tmp).segmentBytes(256 * 1024).build()) {
      CoordinatorLog a = log.open("a");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong appended = new AtomicLong();
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
          StateLogSnapshot s = FileStateLog.inspect(tmp);
          long seen = s.coordinator("a").flatMap(StateLogSnapshot.Coordinator::lastState)
              .map(StateLogSnapshot.State::checkpointId).orElse(0L);
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
    TestLogs.append(seg, Arrays.copyOf(record, 14)); // an append still being written
    StateLogSnapshot s = FileStateLog.inspect(tmp);
    StateLogSnapshot.Tail tail = s.tailInProgress().orElseThrow();
    assertEquals(seg.toAbsolutePath().normalize(), tail.file());
    assertEquals(size, tail.offset());
    assertEquals(14, tail.bytes());
    assertFalse(tail.segmentHeaderIncomplete());
    assertEquals(1, s.coordinator("a").orElseThrow().lastState().orElseThrow().checkpointId());
    assertEquals(size + 14, TestLogs.size(seg), "nothing truncated");

    // an incomplete new segment is reported too (segment 1 is complete then: it was synced first)
    TestLogs.truncate(seg, size);
    Files.write(tmp.resolve(LogFormat.segmentFileName(2)), new byte[] {'T', 'W'});
    StateLogSnapshot s2 = FileStateLog.inspect(tmp);
    assertTrue(s2.tailInProgress().orElseThrow().segmentHeaderIncomplete());
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
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.inspect(tmp));
    assertEquals(s0, e.offset());
  }

  /** A directory without a log is an error that says so, not an empty log. */
  @Test
  void aDirectoryWithoutALogIsAnError() throws IOException {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Path other = Files.createDirectories(tmp.resolve("other"));
    Files.writeString(other.resolve("passwd"), "root:x:0:0");
    Files.writeString(other.resolve("segment-1.log"), "not a segment name");
    for (Path dir : List.of(empty, other)) {
      UncheckedIOException e =
          assertThrows(UncheckedIOException.class, () -> FileStateLog.inspect(dir));
      assertTrue(e.getCause() instanceof NoSuchFileException, e.toString());
      assertTrue(e.getMessage().contains("holds no state log segment"), e.getMessage());
    }
    UncheckedIOException missing = assertThrows(UncheckedIOException.class,
        () -> FileStateLog.inspect(tmp.resolve("missing")));
    assertTrue(missing.getCause() instanceof NoSuchFileException);
    assertFalse(Files.exists(tmp.resolve("missing")), "not created");
    UncheckedIOException file = assertThrows(UncheckedIOException.class,
        () -> FileStateLog.inspect(other.resolve("passwd")));
    assertTrue(file.getCause() instanceof NotDirectoryException);
    assertEquals(List.of("passwd", "segment-1.log"), TestLogs.fileNames(other));
  }

  /**
   * How a test models a power loss in the middle of an append: find the coordinator's last STATE
   * record with the view and cut the file inside it (truncate it there, or write zeros over the
   * rest of the record, as a crash in written-ahead space leaves it). The next owner cuts the
   * record off and the coordinator is back at its previous state.
   */
  @Test
  void aTestCanTearTheLastRecordWithThePositionTheViewGives() throws IOException {
    Path orig = tmp.resolve("orig");
    try (FileStateLog log = FileStateLog.open(orig)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, "first".getBytes(UTF_8));
      a.appendState(2, "second, to be torn".getBytes(UTF_8));
      orig = TestLogs.copyDir(orig, tmp.resolve("as-a-crash-leaves-it"));
    }
    StateLogSnapshot.RecordPosition last =
        FileStateLog.inspect(orig).coordinator("a").orElseThrow().lastState().orElseThrow()
            .position();
    for (long cut = last.offset(); cut < last.end(); cut++) {
      for (boolean zeros : new boolean[] {false, true}) {
        Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut + "-" + zeros));
        Path file = dir.resolve(last.file().getFileName());
        if (zeros) {
          try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate((int) (last.end() - cut)), cut);
          }
        } else {
          TestLogs.truncate(file, cut);
        }
        StateLogSnapshot before = FileStateLog.inspect(dir);
        assertEquals(1, before.coordinator("a").orElseThrow().lastState().orElseThrow()
            .checkpointId(), "cut at " + cut);
        // a tail in progress, unless no byte of the record that is not zero is left
        before.tailInProgress().ifPresent(t -> assertEquals(last.offset(), t.offset()));
        try (FileStateLog log = FileStateLog.open(dir)) {
          assertEquals(new StoredState(1, "first".getBytes(UTF_8)), log.open("a").lastState());
        }
        TestLogs.deleteRecursively(dir);
      }
    }
  }
}
