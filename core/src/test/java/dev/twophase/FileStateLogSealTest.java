package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.crash.ChildJvm;
import dev.twophase.internal.log.LogChildMain;
import dev.twophase.internal.log.LogFormat;
import dev.twophase.internal.log.TestLogs;
import dev.twophase.internal.log.TestLogs.ChildResult;
import dev.twophase.testing.CrashInjector;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A roll seals the old segment, naming the new one, once the new one is durable: the loss of the
 * newest segment, or of one in the middle, is reported as corruption; a crash anywhere in a roll
 * is not; a log of format 2 (without seals) opens.
 */
class FileStateLogSealTest {

  @TempDir Path tmp;

  private static byte[] state(int checkpoint) {
    return ("state-" + checkpoint).getBytes(UTF_8);
  }

  private static byte[] payload(int coordinator, int checkpoint) {
    return ("c" + coordinator + "-" + checkpoint).getBytes(UTF_8);
  }

  private static Path segment(Path dir, long sequence) {
    return dir.resolve(LogFormat.segmentFileName(sequence));
  }

  /**
   * A log that {@code rolls} child JVMs ({@link LogChildMain} {@code compact}: coordinators c0..c5
   * at checkpoint 10) each left halted at {@link ProtocolPoint#DURING_COMPACTION} of a roll: the new
   * segment written (whole, since a killed process's writes survive), the old one not sealed, the
   * older ones still there; each child's open sealed the segment its predecessor had left unsealed.
   */
  private Path crashedInRolls(String name, int rolls) throws Exception {
    Path dir = tmp.resolve(name);
    for (int r = 0; r < rolls; r++) {
      ChildResult child = TestLogs.runChild(LogChildMain.class,
          List.of("-D" + ChildJvm.CRASH_AT + "=" + ProtocolPoint.DURING_COMPACTION + ":1"),
          "compact", dir.toString());
      assertEquals(CrashInjector.EXIT_CODE, child.exitCode(), child.output());
    }
    return dir;
  }

  /** Opens {@code dir}, checks c0..c5, and lets c0 decide checkpoints 11..{@code last}. */
  private static void openAndDecide(Path dir, int last) {
    try (FileStateLog log = FileStateLog.open(dir)) {
      for (int i = 0; i < 6; i++) {
        try (CoordinatorLog c = log.open("c" + i)) {
          assertTrue(c.lastState().checkpointId() >= 10, "c" + i);
          if (i == 0) {
            for (int id = 11; id <= last; id++) {
              c.appendState(id, payload(0, id));
            }
          } else {
            assertEquals(new StoredState(10, payload(i, 10)), c.lastState(), "c" + i);
          }
        }
      }
    }
  }

  @Test
  void aMissingNewestSegmentIsCorruptionNamingItAndTheSteps() throws Exception {
    Path dir = crashedInRolls("newest", 1);
    long unsealed = Files.size(segment(dir, 1));
    openAndDecide(dir, 20); // seals segment 1; checkpoints 11..20 of c0 go to segment 2
    assertEquals(List.of(segment(dir, 1), segment(dir, 2)), TestLogs.segments(dir));
    assertEquals(unsealed + LogFormat.sealRecordSize(), Files.size(segment(dir, 1)), "sealed");
    Files.delete(segment(dir, 2));

    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
    assertEquals(segment(dir, 2), e.file());
    assertEquals(0, e.offset());
    String m = e.getMessage();
    for (String part : List.of(
        "state log segment " + LogFormat.segmentFileName(2) + " is missing",
        LogFormat.segmentFileName(1) + ", is sealed",
        "Nothing was changed", "copy the log directory aside", "put the missing segment back",
        "restore a copy", "Torn tail or corruption")) {
      assertTrue(m.contains(part), "missing '" + part + "' in: " + m);
    }
    assertEquals(List.of(segment(dir, 1)), TestLogs.segments(dir), "nothing was changed");
    assertEquals(unsealed + LogFormat.sealRecordSize(), Files.size(segment(dir, 1)));
    StateLogCorruptedException inspected =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.inspect(dir));
    assertEquals(e.getMessage(), inspected.getMessage());
  }

  @Test
  void aMissingMiddleSegmentIsCorruptionNamingIt() throws Exception {
    Path dir = crashedInRolls("middle", 2);
    openAndDecide(dir, 20);
    assertEquals(List.of(segment(dir, 1), segment(dir, 2), segment(dir, 3)), TestLogs.segments(dir));
    Files.delete(segment(dir, 2));

    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
    assertEquals(segment(dir, 2), e.file());
    assertTrue(e.getMessage().contains("state log segment " + LogFormat.segmentFileName(2)
        + " is missing, between " + LogFormat.segmentFileName(1) + " and "
        + LogFormat.segmentFileName(3)), e.getMessage());
    assertTrue(e.getMessage().contains("put the missing segment back"), e.getMessage());
    assertEquals(List.of(segment(dir, 1), segment(dir, 3)), TestLogs.segments(dir));
  }

  /**
   * A crash in a roll is no corruption, wherever it lands: before the seal (the child halted at
   * {@link ProtocolPoint#DURING_COMPACTION}), during its write (a power loss keeps a prefix of the
   * seal, or zeros where the file's size reached the disk and its bytes did not: every length),
   * or after it (the seal whole, the old segment not yet deleted). The log opens with every state
   * and seals the old segment if needed, so that losing the new one is detected from then on.
   */
  @Test
  void aCrashAnywhereInARollLosesNothingAndLeavesTheNewSegmentsLossDetectable() throws Exception {
    Path crashed = crashedInRolls("crashed", 1);
    long sealStart = Files.size(segment(crashed, 1));
    ByteBuffer seal = ByteBuffer.allocate(LogFormat.sealRecordSize());
    LogFormat.putSeal(seal, new CRC32C(), 2);
    for (int kept = 0; kept <= LogFormat.sealRecordSize() + 1; kept++) {
      Path dir = TestLogs.copyDir(crashed, tmp.resolve("kept-" + kept));
      if (kept <= LogFormat.sealRecordSize()) {
        TestLogs.append(segment(dir, 1), Arrays.copyOf(seal.array(), kept));
      } else {
        TestLogs.append(segment(dir, 1), new byte[LogFormat.sealRecordSize()]);
      }
      openAndDecide(dir, 11);
      assertArrayEquals(seal.array(), Arrays.copyOfRange(Files.readAllBytes(segment(dir, 1)),
          (int) sealStart, (int) sealStart + LogFormat.sealRecordSize()), "sealed, kept " + kept);
      assertEquals(sealStart + LogFormat.sealRecordSize(), Files.size(segment(dir, 1)));

      Path lost = TestLogs.copyDir(dir, tmp.resolve("lost-" + kept));
      Files.delete(segment(lost, 2));
      assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(lost), "kept " + kept);

      try (FileStateLog log = FileStateLog.open(dir)) {
        assertEquals(new StoredState(11, payload(0, 11)), log.open("c0").lastState());
        log.compact();
      }
      assertEquals(List.of(segment(dir, 3)), TestLogs.segments(dir), "the roll completed");
      TestLogs.deleteRecursively(dir);
      TestLogs.deleteRecursively(lost);
    }
  }

  /** Bytes after a segment's seal were added or damaged afterwards. */
  @Test
  void bytesAfterASealAreCorruption() throws Exception {
    Path dir = crashedInRolls("after", 1);
    openAndDecide(dir, 11);
    TestLogs.append(segment(dir, 1), new byte[] {1, 2, 3});
    StateLogCorruptedException e =
        assertThrows(StateLogCorruptedException.class, () -> FileStateLog.open(dir));
    assertEquals(segment(dir, 1), e.file());
    assertTrue(e.getMessage().contains("bytes after the SEAL record"), e.getMessage());
  }

  // ------------------------------------------------------------------ format 2

  /** A segment of format 2, as earlier releases wrote it: header, OWNER, a STATE of "a". */
  private static byte[] formatTwoSegment(long sequence, String logId, long epoch, int checkpoint) {
    ByteBuffer b = ByteBuffer.allocate(4096);
    CRC32C crc = new CRC32C();
    b.put(LogFormat.MAGIC).putInt(2).putLong(sequence).put(logId.getBytes(UTF_8));
    crc.update(b.array(), 0, LogFormat.SEGMENT_HEADER_SIZE - 4);
    b.putInt((int) crc.getValue());
    LogFormat.putOwner(b, crc, epoch);
    LogFormat.putState(b, crc, "a".getBytes(UTF_8), checkpoint, epoch, state(checkpoint));
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  @Test
  void aLogOfFormatTwoOpensAndIsRolledToFormatThree() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("v2"));
    Files.write(segment(dir, 7), formatTwoSegment(7, "abcd1234", 3, 5));
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals("abcd1234", log.logId());
      assertEquals(4, log.ownerEpoch());
      assertEquals(new StoredState(5, state(5)), log.open("a").lastState());
    }
    assertEquals(List.of(segment(dir, 8)), TestLogs.segments(dir), "rolled at open");
    assertEquals(LogFormat.VERSION, ByteBuffer.wrap(Files.readAllBytes(segment(dir, 8))).getInt(8));
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals(new StoredState(5, state(5)), log.open("a").lastState());
    }
  }

  /** Two segments of format 2, as a crash during a roll of an earlier release left them. */
  @Test
  void twoSegmentsOfFormatTwoOpen() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("v2pair"));
    Files.write(segment(dir, 1), formatTwoSegment(1, "abcd1234", 1, 5));
    Files.write(segment(dir, 2), formatTwoSegment(2, "abcd1234", 1, 6));
    try (FileStateLog log = FileStateLog.open(dir)) {
      assertEquals(new StoredState(6, state(6)), log.open("a").lastState());
    }
    assertEquals(List.of(segment(dir, 3)), TestLogs.segments(dir));
    assertFalse(Files.exists(segment(dir, 1)));
  }
}
