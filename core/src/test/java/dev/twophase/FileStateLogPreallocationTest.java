package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments extended with zeros ahead of their appends ({@link FileStateLog.Builder#preallocateBytes}):
 * the zeros never count as records, a crash leaves them behind for the next open to cut, and a
 * record torn inside them is cut like any torn record.
 */
class FileStateLogPreallocationTest {

  private static final long CHUNK = FileStateLog.DEFAULT_PREALLOCATE_BYTES;

  @TempDir Path tmp;

  @Test
  void theActiveSegmentIsExtendedAheadAndCutToItsRecordsOnClose() throws IOException {
    Path dir = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.open("a").appendState(1, "one".getBytes(UTF_8));
      Path seg = TestLogs.lastSegment(dir);
      long records = TestLogs.recordsEnd(dir);
      assertEquals(CHUNK, TestLogs.size(seg), "extended to the next multiple of the chunk");
      assertTrue(records < 200, "records end at " + records);
      assertFalse(FileStateLog.inspect(dir).tailInProgress().isPresent(), "zeros are no append in progress");
    }
    assertEquals(TestLogs.recordsEnd(dir), TestLogs.size(TestLogs.lastSegment(dir)));
  }

  @Test
  void appendsPastTheZerosExtendTheSegmentByAnotherChunk() throws IOException {
    Path dir = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.builder(dir).preallocateBytes(4096).build()) {
      CoordinatorLog a = log.open("a");
      byte[] payload = new byte[1000];
      for (int i = 1; i <= 10; i++) {
        a.appendState(i, payload);
        long end = TestLogs.recordsEnd(dir);
        long length = TestLogs.size(TestLogs.lastSegment(dir));
        assertEquals((end / 4096 + 1) * 4096, length, "after append " + i + ", records end at " + end);
      }
    }
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals(10, log.open("a").lastState().checkpointId());
    }
  }

  @Test
  void aRecordLargerThanTheChunkIsWrittenWholeAndReadBack() throws IOException {
    Path dir = tmp.resolve("log");
    byte[] big = new byte[10_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31 + 7);
    }
    try (FileStateLog log = FileStateLog.builder(dir).preallocateBytes(4096).build()) {
      log.open("a").appendState(1, big);
      long end = TestLogs.recordsEnd(dir);
      assertTrue(end > 10_000, "records end at " + end);
      assertEquals((end / 4096 + 1) * 4096, TestLogs.size(TestLogs.lastSegment(dir)));
    }
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals(new StoredState(1, big), log.open("a").lastState());
    }
  }

  @Test
  void offWritesNoZeros() throws IOException {
    Path dir = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.builder(dir).preallocateBytes(0).build()) {
      log.open("a").appendState(1, "one".getBytes(UTF_8));
      assertEquals(TestLogs.recordsEnd(dir), TestLogs.size(TestLogs.lastSegment(dir)));
    }
  }

  @Test
  void theNextOpenAfterACrashCutsTheZerosAndKeepsEveryRecord() throws IOException {
    Path orig = tmp.resolve("orig");
    Path crashed;
    try (FileStateLog log = FileStateLog.open(orig)) {
      log.open("a").appendState(7, "seven".getBytes(UTF_8));
      log.open("b").appendCompletion(3);
      // what a crash leaves: the files as they are while the log is open, zeros included
      crashed = TestLogs.copyDir(orig, tmp.resolve("crashed"));
    }
    assertEquals(CHUNK, TestLogs.size(TestLogs.lastSegment(crashed)));
    try (FileStateLog log = FileStateLog.open(crashed)) {
      CoordinatorLog a = log.open("a");
      assertEquals(new StoredState(7, "seven".getBytes(UTF_8)), a.lastState());
      assertEquals(3, log.open("b").lastCompletedCheckpointId());
      a.appendState(8, "eight".getBytes(UTF_8));
    }
    try (FileStateLog log = FileStateLog.open(crashed)) {
      assertEquals(8, log.open("a").lastState().checkpointId());
    }
  }

  /**
   * A crash in the middle of an append into written-ahead space leaves the record's start on disk
   * and zeros where the rest should be: at every length of the written part, the record is cut and
   * the one before it kept.
   */
  @Test
  void aRecordTornInsideTheZerosIsCutAtEveryByteOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    long s0;
    long s1;
    try (FileStateLog log = FileStateLog.open(orig)) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, "first".getBytes(UTF_8));
      s0 = TestLogs.recordsEnd(orig);
      a.appendState(2, "second, to be torn".getBytes(UTF_8));
      s1 = TestLogs.recordsEnd(orig);
      orig = TestLogs.copyDir(orig, tmp.resolve("open-copy"));
    }
    for (long cut = s0; cut < s1; cut++) {
      Path dir = TestLogs.copyDir(orig, tmp.resolve("cut-" + cut));
      zero(TestLogs.lastSegment(dir), cut, s1);
      try (FileStateLog log = FileStateLog.open(dir)) {
        CoordinatorLog a = log.open("a");
        assertEquals(new StoredState(1, "first".getBytes(UTF_8)), a.lastState(), "cut at " + cut);
        a.appendState(3, "after".getBytes(UTF_8));
      }
      try (FileStateLog log = FileStateLog.open(dir)) {
        assertEquals(3, log.open("a").lastState().checkpointId(), "cut at " + cut);
      }
      TestLogs.deleteRecursively(dir);
    }
  }

  /**
   * The zeros are written bytes like any other: damage there cannot be told from a damaged record
   * followed by lost ones, so it is reported, with file and offset, not cut off silently.
   */
  @Test
  void damageInsideTheZerosIsReportedWithFileAndOffset() throws IOException {
    Path orig = tmp.resolve("orig");
    long end;
    try (FileStateLog log = FileStateLog.open(orig)) {
      log.open("a").appendState(1, "one".getBytes(UTF_8));
      end = TestLogs.recordsEnd(orig);
      orig = TestLogs.copyDir(orig, tmp.resolve("open-copy"));
    }
    Path seg = TestLogs.lastSegment(orig);
    TestLogs.flipBit(seg, end + 1000, 3);
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(tmp.resolve("open-copy")).close());
    assertEquals(seg, e.file(), e.getMessage());
    assertEquals(end, e.offset(), e.getMessage());
  }

  @Test
  void theSettingIsValidated() {
    FileStateLog.Builder b = FileStateLog.builder(tmp.resolve("log"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.preallocateBytes(100));
    assertTrue(e.getMessage().contains("preallocateBytes"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.preallocateBytes(-1));
    b.preallocateBytes(0);
    b.preallocateBytes(4096);
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
