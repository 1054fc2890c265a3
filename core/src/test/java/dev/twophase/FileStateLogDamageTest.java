package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A torn append is cut off; damage, even in the last record, is reported with the operator's
 * steps and nothing is cut (see LogFormat, "Torn tails and damage").
 */
class FileStateLogDamageTest {

  @TempDir Path tmp;

  private static byte[] json(int checkpoint) {
    return ("{\"checkpointId\":" + checkpoint + ",\"pending\":[\"orders-sink-1-" + checkpoint
        + "\"]}").getBytes(UTF_8);
  }

  /**
   * A log as a crash leaves it (copied while open, so with the zeros written ahead) whose last
   * record is the acknowledged STATE record of checkpoint 3. Returns {start, end} of that record.
   */
  private long[] logWithAcknowledgedLastRecord(Path dir, boolean preallocate) throws IOException {
    Path live = tmp.resolve("live-" + dir.getFileName());
    try (FileStateLog log = preallocate ? FileStateLog.open(live) : TestLogs.openExact(live)) {
      CoordinatorLog a = log.open("orders");
      a.appendState(1, json(1));
      a.appendCompletion(1);
      a.appendState(2, json(2));
      long start = TestLogs.recordsEnd(live);
      a.appendState(3, json(3)); // returned: the decision of checkpoint 3 is durable
      long end = TestLogs.recordsEnd(live);
      TestLogs.copyDir(live, dir);
      return new long[] {start, end};
    }
  }

  /**
   * Issue 8, item 1: one bit flipped anywhere in the last acknowledged record (followed by the
   * zeros written ahead) was cut off as a torn tail and the decision silently lost. Every bit of
   * it, with and without the zeros after it.
   */
  @Test
  void aBitFlippedInTheLastAcknowledgedRecordIsDamageNotATornTail() throws IOException {
    for (boolean preallocate : new boolean[] {true, false}) {
      Path orig = tmp.resolve("orig-" + preallocate);
      long[] r = logWithAcknowledgedLastRecord(orig, preallocate);
      Path seg = TestLogs.lastSegment(orig);
      byte[] original = Files.readAllBytes(seg);
      int cases = 0;
      for (long off = r[0]; off < r[1]; off++) {
        for (int bit = 0; bit < 8; bit++) {
          TestLogs.flipBit(seg, off, bit);
          StateLogCorruptedException e =
              assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(orig).close(),
                  "bit " + bit + " of byte " + off + " (record " + r[0] + "-" + r[1] + ")");
          assertEquals(seg, e.file());
          assertEquals(r[0], e.offset(), e.getMessage());
          assertTrue(e.getMessage().contains("in the last segment"), e.getMessage());
          assertTrue(e.getMessage().contains("truncate -s " + r[0] + " " + seg), e.getMessage());
          assertTrue(Arrays.equals(flipped(original, off, bit), Files.readAllBytes(seg)),
              "nothing cut or changed");
          TestLogs.flipBit(seg, off, bit);
          cases++;
        }
      }
      assertEquals(8 * (r[1] - r[0]), cases);
      // and the operator's way out works: cut at the offset, open, checkpoint 2 is the last
      TestLogs.flipBit(seg, r[0] + 20, 1);
      TestLogs.truncate(seg, r[0]);
      try (FileStateLog log = FileStateLog.open(orig)) {
        assertEquals(new StoredState(2, json(2)), log.open("orders").lastState());
      }
    }
  }

  private static byte[] flipped(byte[] bytes, long off, int bit) {
    byte[] copy = bytes.clone();
    copy[(int) off] ^= (byte) (1 << bit);
    return copy;
  }

  /** The last record written to its end with zeros in its middle: damage, with a hint if a sector. */
  @Test
  void aHoleInTheLastRecordWithItsEndWrittenIsDamage() throws IOException {
    Path dir = tmp.resolve("log");
    long start;
    long end;
    try (FileStateLog log = TestLogs.openExact(dir)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, json(1));
      start = TestLogs.recordsEnd(dir);
      byte[] big = new byte[3000];
      Arrays.fill(big, (byte) 'x');
      a.appendState(2, big);
      end = TestLogs.recordsEnd(dir);
    }
    Path seg = TestLogs.lastSegment(dir);
    byte[] original = Files.readAllBytes(seg);

    zero(seg, start + 30, start + 70); // not a whole sector
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
    assertEquals(start, e.offset());
    assertFalse(e.getMessage().contains("whole sector"), e.getMessage());

    Files.write(seg, original);
    long sector = (start + 511) / 512 * 512 + 512;
    assertTrue(sector + 512 < end);
    zero(seg, sector, sector + 512); // what a device that lost one sector of a write leaves
    StateLogCorruptedException e2 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
    assertEquals(start, e2.offset());
    assertTrue(e2.getMessage().contains("zeros in the whole sector at offset " + sector),
        e2.getMessage());
  }

  /**
   * A power loss (or a killed process) tears any suffix of the last write, which under group
   * commit holds several records: at every offset in it, with zeros or nothing after the cut, the
   * records before the cut are kept and the rest cut off.
   */
  @Test
  void aTornGroupWriteIsCutAfterItsLastWholeRecordAtEveryOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    List<long[]> records = new ArrayList<>(); // {start, end, checkpoint}
    try (FileStateLog log = TestLogs.openExact(orig)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, json(1));
      for (int i = 2; i <= 5; i++) {
        long start = TestLogs.recordsEnd(orig);
        a.appendState(i, json(i));
        records.add(new long[] {start, TestLogs.recordsEnd(orig), i});
      }
    }
    long from = records.get(0)[0];
    long to = records.get(records.size() - 1)[1];
    for (long cut = from; cut < to; cut++) {
      for (boolean zerosAfter : new boolean[] {false, true}) {
        Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut + "-" + zerosAfter));
        Path seg = TestLogs.lastSegment(dir);
        if (zerosAfter) {
          zero(seg, cut, to);
          TestLogs.appendZeros(seg, 5000);
        } else {
          TestLogs.truncate(seg, cut);
        }
        long expected = 1;
        for (long[] r : records) {
          if (r[1] <= cut) {
            expected = r[2];
          }
        }
        try (FileStateLog log = TestLogs.openExact(dir)) {
          assertEquals(new StoredState(expected, json((int) expected)), log.open("a").lastState(),
              "cut at " + cut + (zerosAfter ? ", zeros after" : ""));
        }
        TestLogs.deleteRecursively(dir);
      }
    }
  }

  @Test
  void aFlippedBitInTheLastCompletionMarkIsDamage() throws IOException {
    Path dir = tmp.resolve("log");
    long start;
    long end;
    try (FileStateLog log = TestLogs.openExact(dir)) {
      CoordinatorLog a = log.open("a");
      a.appendState(3, json(3));
      start = TestLogs.recordsEnd(dir);
      a.appendCompletion(3);
      end = TestLogs.recordsEnd(dir);
    }
    Path seg = TestLogs.lastSegment(dir);
    for (long off = start; off < end; off++) {
      TestLogs.flipBit(seg, off, (int) (off % 8));
      StateLogCorruptedException e =
          assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir), "at " + off);
      assertEquals(start, e.offset());
      TestLogs.flipBit(seg, off, (int) (off % 8));
    }
    try (FileStateLog log = TestLogs.openExact(dir)) {
      assertEquals(3, log.open("a").lastCompletedCheckpointId());
    }
  }

  // ------------------------------------------------------------------ log identity

  @Test
  void theLogIdIsKeptThroughReopenAndCompaction() {
    Path dir = tmp.resolve("log");
    String id;
    try (FileStateLog log = FileStateLog.open(dir)) {
      id = log.logId();
      assertTrue(id.matches("[a-z0-9]{8}"), id);
      CoordinatorLog a = log.open("a");
      assertEquals(id, a.logId());
      a.appendState(1, json(1));
      log.compact();
      assertEquals(id, TestLogs.logId(dir));
    }
    for (int i = 0; i < 3; i++) {
      try (FileStateLog log = FileStateLog.builder(dir).segmentBytes(4096).build()) {
        assertEquals(id, log.logId());
        CoordinatorLog a = log.open("a");
        for (int n = 0; n < 50; n++) {
          a.appendState(2 + 50 * i + n, new byte[200]); // rolls several times
        }
        assertTrue(log.stats().compactions() > 0);
      }
    }
    assertEquals(id, TestLogs.logId(dir));
    try (FileStateLog other = FileStateLog.open(tmp.resolve("other"))) {
      assertFalse(other.logId().equals(id), "two logs, two ids");
    }
  }

  /** A damaged id is an error, never a new id. */
  @Test
  void aDamagedLogIdIsCorruptionNotANewId() throws IOException {
    Path dir = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.open("a").appendState(1, json(1));
    }
    Path seg = TestLogs.lastSegment(dir);
    byte[] original = Files.readAllBytes(seg);
    for (int off = LogFormat.LOG_ID_OFFSET; off < LogFormat.LOG_ID_OFFSET + 8; off++) {
      TestLogs.flipBit(seg, off, off % 8);
      StateLogCorruptedException e =
          assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
      assertEquals(0, e.offset());
      assertTrue(e.getMessage().contains("segment header checksum mismatch"), e.getMessage());
      assertTrue(Arrays.equals(flipped(original, off, off % 8), Files.readAllBytes(seg)));
      TestLogs.flipBit(seg, off, off % 8);
    }
  }

  @Test
  void segmentsOfTwoLogsInOneDirectoryAreRefused() throws IOException {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    try (FileStateLog log = FileStateLog.open(a)) {
      log.open("x").appendState(1, json(1));
    }
    try (FileStateLog log = FileStateLog.open(b)) {
      log.open("x").appendState(1, json(1));
      log.compact(); // segment 2 of log b
    }
    Files.copy(b.resolve(LogFormat.segmentFileName(2)), a.resolve(LogFormat.segmentFileName(2)));
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(a));
    assertEquals(a.resolve(LogFormat.segmentFileName(2)).toAbsolutePath(), e.file().toAbsolutePath());
    assertTrue(e.getMessage().contains("segments of two logs"), e.getMessage());
    assertTrue(e.getMessage().contains(TestLogs.logId(b)), e.getMessage());
  }

  /**
   * A crash at any point of a log's creation: the open that creates a log returns only once its
   * first segment (header with the id, OWNER record) is synced, so an id nobody learned of may be
   * replaced, and one in a complete header is kept; the log always opens.
   */
  @Test
  void aCrashAtAnyPointOfCreationLeavesALogThatOpens() throws IOException {
    Path orig = tmp.resolve("orig");
    String id;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      id = log.logId();
    }
    Path seg = TestLogs.lastSegment(orig);
    long size = TestLogs.size(seg);
    for (long cut = 0; cut <= size; cut++) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut));
      TestLogs.truncate(dir.resolve(seg.getFileName()), cut);
      try (FileStateLog log = TestLogs.openExact(dir)) {
        if (cut >= LogFormat.SEGMENT_HEADER_SIZE) {
          assertEquals(id, log.logId(), "cut at " + cut);
        }
        assertTrue(LogFormat.isLogId(log.logId()));
      }
      try (FileStateLog log = TestLogs.openExact(dir)) {
        assertEquals(cut >= LogFormat.SEGMENT_HEADER_SIZE ? id : log.logId(), log.logId());
      }
      TestLogs.deleteRecursively(dir);
    }
  }

  // ------------------------------------------------------------------ versions

  @Test
  void aSegmentOfANewerOrOlderFormatSaysSo() throws IOException {
    for (int version : new int[] {LogFormat.VERSION + 1, LogFormat.OLDEST_READ_VERSION - 1}) {
      Path dir = Files.createDirectories(tmp.resolve("v" + version));
      ByteBuffer b = ByteBuffer.allocate(64);
      b.put(LogFormat.MAGIC).putInt(version).putLong(1).put("abcd1234".getBytes(UTF_8));
      b.putInt(42); // whatever that version's header holds next
      Path seg = dir.resolve(LogFormat.segmentFileName(1));
      Files.write(seg, b.array());
      StateLogCorruptedException e =
          assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
      assertTrue(e.getMessage().contains("format version " + version), e.getMessage());
      assertTrue(e.getMessage().contains(version > LogFormat.VERSION
          ? "written by a newer version of twophase" : "written by an older version of twophase"),
          e.getMessage());
      assertEquals(64, Files.size(seg), "untouched");
    }
    // a flipped bit in the version field of a header of this format is damage, not a version
    Path dir = tmp.resolve("flip");
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.open("a").appendState(1, json(1));
    }
    TestLogs.flipBit(TestLogs.lastSegment(dir), 11, 0); // version 3 reads 2, also a readable one
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
    assertTrue(e.getMessage().contains("segment header checksum mismatch"), e.getMessage());
    assertFalse(e.getMessage().contains("newer version"), e.getMessage());
  }

  @Test
  void inMemoryLogsHaveAnIdTooKeptByReopen() {
    dev.twophase.testing.InMemoryStateLog log = new dev.twophase.testing.InMemoryStateLog();
    assertTrue(log.logId().matches("[a-z0-9]{8}"), log.logId());
    assertEquals(log.logId(), log.open("a").logId());
    assertEquals(log.logId(), log.reopen().logId());
    assertFalse(log.logId().equals(new dev.twophase.testing.InMemoryStateLog().logId()));
    assertEquals("fixed123", new dev.twophase.testing.InMemoryStateLog("fixed123").logId());
    assertThrows(IllegalArgumentException.class, () -> new dev.twophase.testing.InMemoryStateLog("Bad"));
    assertNull(new dev.twophase.testing.InMemoryStateLog("fixed123").open("a").lastState());
  }

  private static void zero(Path file, long from, long to) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
      long at = from;
      while (zeros.hasRemaining()) {
        at += ch.write(zeros, at);
      }
    }
  }
}
