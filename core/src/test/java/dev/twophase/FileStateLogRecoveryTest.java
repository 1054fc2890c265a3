package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery from torn tails, and detection of damage. */
class FileStateLogRecoveryTest {

  @TempDir Path tmp;

  private static final List<String> IDS = List.of("a", "b", "c");

  /** What the log should hold: per coordinator, last state (or null) and highest completion. */
  private record Expected(Map<String, StoredState> states, Map<String, Long> completed) {
    static Expected of(Map<String, CoordinatorLog> views) {
      Map<String, StoredState> s = new TreeMap<>();
      Map<String, Long> c = new TreeMap<>();
      views.forEach(
          (id, v) -> {
            s.put(id, v.lastState());
            c.put(id, v.lastCompletedCheckpointId());
          });
      return new Expected(s, c);
    }

    void assertHeldBy(FileStateLog log) {
      for (String id : states.keySet()) {
        try (CoordinatorLog v = log.open(id)) {
          assertEquals(states.get(id), v.lastState(), id);
          assertEquals(completed.get(id), v.lastCompletedCheckpointId(), id);
        }
      }
    }
  }

  /** A log with a few records per coordinator, all in segment 1. Returns the views' state. */
  private static Map<String, CoordinatorLog> baseline(FileStateLog log) {
    Map<String, CoordinatorLog> views = new TreeMap<>();
    for (String id : IDS) {
      views.put(id, log.open(id));
    }
    for (int i = 1; i <= 4; i++) {
      for (String id : IDS) {
        views.get(id).appendState(i, (id + "-state-" + i).getBytes(UTF_8));
        views.get(id).appendCompletion(i - 1);
      }
    }
    return views;
  }

  private static byte[] payload(int n) {
    byte[] p = new byte[n];
    for (int i = 0; i < n; i++) {
      p[i] = (byte) (i * 7 + 1);
    }
    return p;
  }

  @Test
  void tornLastStateRecordIsCutOffAtEveryByteOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    Expected before;
    long s0;
    long s1;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      Map<String, CoordinatorLog> views = baseline(log);
      before = Expected.of(views);
      s0 = TestLogs.size(TestLogs.lastSegment(orig));
      views.get("b").appendState(9, payload(60));
      s1 = TestLogs.size(TestLogs.lastSegment(orig));
    }
    assertEquals(LogFormat.stateRecordSize(1, 60), s1 - s0);
    for (long cut = s0; cut < s1; cut++) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut));
      TestLogs.truncate(TestLogs.lastSegment(dir), cut);
      try (FileStateLog log = TestLogs.openExact(dir)) {
        assertEquals(2, log.ownerEpoch());
        assertEquals(s0 + LogFormat.ownerRecordSize(), TestLogs.size(TestLogs.lastSegment(dir)),
            "cut at " + cut);
        before.assertHeldBy(log);
        log.open("b").appendState(10, "after".getBytes(UTF_8));
      }
      try (FileStateLog log = TestLogs.openExact(dir)) {
        assertEquals(3, log.ownerEpoch());
        assertEquals(new StoredState(10, "after".getBytes(UTF_8)), log.open("b").lastState());
        assertEquals(before.states().get("a"), log.open("a").lastState());
      }
      TestLogs.deleteRecursively(dir);
    }
  }

  @Test
  void tornLastCompletionRecordIsCutOffAtEveryByteOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    Expected before;
    long s0;
    long s1;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      Map<String, CoordinatorLog> views = baseline(log);
      before = Expected.of(views);
      s0 = TestLogs.size(TestLogs.lastSegment(orig));
      views.get("c").appendCompletion(4);
      s1 = TestLogs.size(TestLogs.lastSegment(orig));
    }
    assertEquals(LogFormat.completedRecordSize(1), s1 - s0);
    for (long cut = s0; cut < s1; cut++) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut));
      TestLogs.truncate(TestLogs.lastSegment(dir), cut);
      try (FileStateLog log = TestLogs.openExact(dir)) {
        before.assertHeldBy(log);
        log.open("c").appendCompletion(4);
      }
      try (FileStateLog log = TestLogs.openExact(dir)) {
        assertEquals(4, log.open("c").lastCompletedCheckpointId());
      }
      TestLogs.deleteRecursively(dir);
    }
  }

  @Test
  void zeroFilledTailsAreCutOff() throws IOException {
    Path orig = tmp.resolve("orig");
    Expected full;
    long s0;
    long s1;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      Map<String, CoordinatorLog> views = baseline(log);
      s0 = TestLogs.size(TestLogs.lastSegment(orig));
      views.get("a").appendState(5, payload(100));
      s1 = TestLogs.size(TestLogs.lastSegment(orig));
      full = Expected.of(views);
    }
    // 1. intact records followed by zeros (the file size reached the disk, the data did not)
    for (int zeros : new int[] {1, 5, 11, 12, 13, 4096, 10_000}) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("zeros-" + zeros));
      TestLogs.append(TestLogs.lastSegment(dir), new byte[zeros]);
      try (FileStateLog log = TestLogs.openExact(dir)) {
        full.assertHeldBy(log);
        assertEquals(s1 + LogFormat.ownerRecordSize(), TestLogs.size(TestLogs.lastSegment(dir)));
      }
    }
    // 2. the last record's start written, its rest zeros (and zeros beyond)
    for (int written : new int[] {3, 12, 20, 60}) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("partial-" + written));
      Path seg = TestLogs.lastSegment(dir);
      TestLogs.truncate(seg, s0 + written);
      TestLogs.append(seg, new byte[4096]);
      try (FileStateLog log = TestLogs.openExact(dir)) {
        assertEquals(new StoredState(4, "a-state-4".getBytes(UTF_8)), log.open("a").lastState());
        assertEquals(s0 + LogFormat.ownerRecordSize(), TestLogs.size(seg));
      }
    }
  }

  /**
   * A log whose last segment holds, in this order, the baseline records, a middle record and three
   * more records. Returns {start, end} of the middle record.
   */
  private long[] logWithMiddleRecord(Path dir) {
    try (FileStateLog log = TestLogs.openExact(dir)) {
      Map<String, CoordinatorLog> views = baseline(log);
      long m0 = TestLogs.size(TestLogs.lastSegment(dir));
      views.get("b").appendState(5, payload(40));
      long m1 = TestLogs.size(TestLogs.lastSegment(dir));
      views.get("a").appendState(5, payload(10));
      views.get("c").appendCompletion(4);
      views.get("b").appendState(6, payload(3));
      return new long[] {m0, m1};
    }
  }

  @Test
  void flippedBitAnywhereInAMiddleRecordIsReportedWithFileAndOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    long[] m = logWithMiddleRecord(orig);
    int cases = 0;
    for (long off = m[0]; off < m[1]; off++) {
      int firstBit = off - m[0] < 4 ? 0 : (int) (off % 8); // every bit of the length field
      int lastBit = off - m[0] < 4 ? 7 : firstBit;
      for (int bit = firstBit; bit <= lastBit; bit++) {
        Path dir = TestLogs.copyDir(orig, tmp.resolve("flip-" + off + "-" + bit));
        Path seg = TestLogs.lastSegment(dir);
        TestLogs.flipBit(seg, off, bit);
        long size = TestLogs.size(seg);
        StateLogCorruptedException e =
            assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir).close(),
                "flipped bit " + bit + " at " + off);
        assertEquals(seg, e.file(), e.getMessage());
        assertEquals(m[0], e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("offset " + m[0]), e.getMessage());
        assertEquals(size, TestLogs.size(seg), "nothing truncated");
        // the directory was released: the error repeats, it does not turn into "in use"
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir).close());
        TestLogs.deleteRecursively(dir);
        cases++;
      }
    }
    assertEquals((m[1] - m[0]) + 4 * 7, cases);
  }

  @Test
  void flippedBitBeforeATornTailIsStillCorruption() throws IOException {
    Path dir = tmp.resolve("log");
    long[] m = logWithMiddleRecord(dir);
    Path seg = TestLogs.lastSegment(dir);
    TestLogs.append(seg, new byte[] {0, 0, 0, 40, 1, 2}); // and a torn frame after everything
    TestLogs.flipBit(seg, m[0] + 20, 3);
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
    assertEquals(m[0], e.offset());
  }

  @Test
  void damageInASegmentThatIsNotTheLastIsCorruption() throws IOException {
    Path orig = tmp.resolve("orig");
    long s0;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      Map<String, CoordinatorLog> views = baseline(log);
      s0 = TestLogs.size(TestLogs.lastSegment(orig));
      views.get("a").appendState(5, payload(30));
    }
    Path seg1 = orig.toAbsolutePath().resolve(LogFormat.segmentFileName(1));
    // a second segment (as if rolled) makes segment 1 a middle segment
    Files.write(orig.resolve(LogFormat.segmentFileName(2)), TestLogs.segmentHeader(2, TestLogs.logId(orig)));

    Path ok = TestLogs.copyDir(orig, tmp.resolve("ok"));
    try (FileStateLog log = TestLogs.openExact(ok)) {
      assertEquals(5, log.open("a").lastState().checkpointId());
    }

    Path cut = TestLogs.copyDir(orig, tmp.resolve("cut"));
    TestLogs.truncate(cut.resolve(seg1.getFileName()), s0 + 20);
    StateLogCorruptedException e1 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(cut));
    assertEquals(cut.resolve(seg1.getFileName()), e1.file());
    assertEquals(s0, e1.offset());
    assertTrue(e1.getMessage().contains("not the last"), e1.getMessage());

    Path zeros = TestLogs.copyDir(orig, tmp.resolve("zeros"));
    TestLogs.append(zeros.resolve(seg1.getFileName()), new byte[100]);
    StateLogCorruptedException e2 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(zeros));
    assertEquals(TestLogs.size(seg1), e2.offset());

    Path flip = TestLogs.copyDir(orig, tmp.resolve("flip"));
    TestLogs.flipBit(flip.resolve(seg1.getFileName()), s0 + 30, 0);
    StateLogCorruptedException e3 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(flip));
    assertEquals(s0, e3.offset());
  }

  @Test
  void foreignFileIsNotAStateLog() throws IOException {
    for (String content : new String[] {"this is not a state log, just some text", "abc", "TWOPHXYZ"}) {
      Path dir = Files.createDirectories(tmp.resolve("foreign-" + content.length()));
      Path seg = dir.resolve(LogFormat.segmentFileName(1));
      Files.write(seg, content.getBytes(UTF_8));
      StateLogCorruptedException e =
          assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
      assertTrue(e.getMessage().contains("not a twophase state log"), e.getMessage());
      assertEquals(seg, e.file());
      assertEquals(0, e.offset());
      assertEquals(content, Files.readString(seg), "left untouched");
    }
  }

  @Test
  void damagedSegmentHeaderIsCorruption() throws IOException {
    Path orig = tmp.resolve("orig");
    try (FileStateLog log = TestLogs.openExact(orig)) {
      baseline(log);
    }
    Path dir = TestLogs.copyDir(orig, tmp.resolve("crc"));
    TestLogs.flipBit(TestLogs.lastSegment(dir), 15, 2); // in the sequence number
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
    assertTrue(e.getMessage().contains("header checksum"), e.getMessage());
    assertEquals(0, e.offset());

    Path renamed = TestLogs.copyDir(orig, tmp.resolve("renamed"));
    Files.move(renamed.resolve(LogFormat.segmentFileName(1)),
        renamed.resolve(LogFormat.segmentFileName(5)));
    StateLogCorruptedException e2 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(renamed));
    assertTrue(e2.getMessage().contains("sequence 1"), e2.getMessage());
  }

  @Test
  void unknownRecordTypeWithAValidChecksumIsCorruption() throws IOException {
    Path dir = tmp.resolve("log");
    long s0;
    try (FileStateLog log = TestLogs.openExact(dir)) {
      baseline(log);
      s0 = TestLogs.size(TestLogs.lastSegment(dir));
    }
    TestLogs.append(TestLogs.lastSegment(dir), TestLogs.frame(new byte[] {9, 1, 2, 3}));
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir));
    assertTrue(e.getMessage().contains("unknown state log record type 9"), e.getMessage());
    assertEquals(s0, e.offset());

    Path dir2 = tmp.resolve("log2");
    try (FileStateLog log = TestLogs.openExact(dir2)) {
      baseline(log);
    }
    // an OWNER record of the wrong length
    TestLogs.append(TestLogs.lastSegment(dir2), TestLogs.frame(new byte[] {1, 0, 0, 0}));
    StateLogCorruptedException e2 =
        assertThrows(StateLogCorruptedException.class, () -> TestLogs.openExact(dir2));
    assertTrue(e2.getMessage().contains("malformed OWNER"), e2.getMessage());
  }

  @Test
  void lastSegmentWithAnIncompleteHeaderIsDropped() throws IOException {
    Path orig = tmp.resolve("orig");
    Expected before;
    try (FileStateLog log = TestLogs.openExact(orig)) {
      before = Expected.of(baseline(log));
    }
    byte[] header = TestLogs.segmentHeader(2, TestLogs.logId(orig));
    for (int len : new int[] {0, 1, 8, 23}) {
      for (int zeros : new int[] {0, 100}) {
        Path dir = TestLogs.copyDir(orig, tmp.resolve("header-" + len + "-" + zeros));
        Path seg2 = dir.resolve(LogFormat.segmentFileName(2));
        byte[] content = Arrays.copyOf(Arrays.copyOf(header, len), len + zeros);
        Files.write(seg2, content);
        try (FileStateLog log = TestLogs.openExact(dir)) {
          assertEquals(2, log.ownerEpoch());
          before.assertHeldBy(log);
          assertFalse(Files.exists(seg2));
          log.compact(); // creates segment 2 again
        }
        try (FileStateLog log = TestLogs.openExact(dir)) {
          before.assertHeldBy(log);
          assertEquals(List.of(seg2), TestLogs.segments(dir));
        }
      }
    }
    // the only segment, with an incomplete header: an empty log
    Path lone = Files.createDirectories(tmp.resolve("lone"));
    Files.write(lone.resolve(LogFormat.segmentFileName(1)), Arrays.copyOf(header, 10));
    try (FileStateLog log = TestLogs.openExact(lone)) {
      assertEquals(1, log.ownerEpoch());
    }
  }

  @Test
  void otherFilesInTheDirectoryAreIgnored() throws IOException {
    Path dir = tmp.resolve("log");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("README"), "hello");
    Files.writeString(dir.resolve("segment-1.log"), "not a segment name");
    Files.writeString(dir.resolve("segment-0000000000000000000x.log"), "nor this");
    try (FileStateLog log = TestLogs.openExact(dir)) {
      log.open("a").appendState(1, new byte[] {1});
    }
    try (FileStateLog log = TestLogs.openExact(dir)) {
      assertEquals(1, log.open("a").lastState().checkpointId());
    }
  }
}
