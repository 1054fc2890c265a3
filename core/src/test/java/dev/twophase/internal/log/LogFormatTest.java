package dev.twophase.internal.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The on-disk format, byte for byte: a change here breaks every existing log. */
class LogFormatTest {

  private static int crc(byte[] b, int from, int to) {
    CRC32C c = new CRC32C();
    c.update(b, from, to - from);
    return (int) c.getValue();
  }

  @Test
  void segmentFileNames() {
    assertEquals("segment-00000000000000000001.log", LogFormat.segmentFileName(1));
    assertEquals("segment-09223372036854775807.log", LogFormat.segmentFileName(Long.MAX_VALUE));
    assertEquals(1, LogFormat.parseSegmentFileName("segment-00000000000000000001.log"));
    assertEquals(
        Long.MAX_VALUE, LogFormat.parseSegmentFileName("segment-09223372036854775807.log"));
    assertEquals(-1, LogFormat.parseSegmentFileName("segment-1.log"));
    assertEquals(-1, LogFormat.parseSegmentFileName("segment-0000000000000000000a.log"));
    assertEquals(-1, LogFormat.parseSegmentFileName("segment-99999999999999999999.log"));
    assertEquals(-1, LogFormat.parseSegmentFileName("segment-00000000000000000001.tmp"));
    assertEquals(-1, LogFormat.parseSegmentFileName("LOCK"));
  }

  @Test
  void segmentHeaderLayout() {
    ByteBuffer b = ByteBuffer.allocate(LogFormat.SEGMENT_HEADER_SIZE);
    LogFormat.putSegmentHeader(b, new CRC32C(), 0x0102030405060708L, "k3x9a0zq");
    byte[] h = b.array();
    assertEquals(32, b.position());
    ByteBuffer expected = ByteBuffer.allocate(32);
    expected.put("TWOPHLOG".getBytes(StandardCharsets.US_ASCII)).putInt(3)
        .putLong(0x0102030405060708L).put("k3x9a0zq".getBytes(StandardCharsets.US_ASCII));
    expected.putInt(crc(expected.array(), 0, 28));
    assertArrayEquals(expected.array(), h);
    assertThrows(IllegalArgumentException.class,
        () -> LogFormat.putSegmentHeader(ByteBuffer.allocate(32), new CRC32C(), 1, "UPPER123"));
  }

  @Test
  void logIds() {
    for (int i = 0; i < 1000; i++) {
      String id = LogFormat.newLogId();
      assertTrue(id.matches("[a-z0-9]{8}"), id);
      assertTrue(LogFormat.isLogId(id), id);
    }
    assertFalse(LogFormat.isLogId(null));
    assertFalse(LogFormat.isLogId("abc"));
    assertFalse(LogFormat.isLogId("abcdefgh1"));
    assertFalse(LogFormat.isLogId("abcdefG1"));
    assertFalse(LogFormat.isLogId("abcd-fg1"));
  }

  @Test
  void recordLayouts() {
    CRC32C crc = new CRC32C();
    byte[] id = "ab".getBytes(StandardCharsets.UTF_8);

    ByteBuffer owner = ByteBuffer.allocate(LogFormat.ownerRecordSize());
    LogFormat.putOwner(owner, crc, 42);
    assertEquals(owner.capacity(), owner.position());
    assertFrame(owner.array(), ByteBuffer.allocate(10).put((byte) 1).putLong(42).put((byte) 0xFF).array());

    ByteBuffer state = ByteBuffer.allocate(LogFormat.stateRecordSize(2, 3));
    LogFormat.putState(state, crc, id, 7, 3, new byte[] {9, 8, 7});
    assertEquals(state.capacity(), state.position());
    byte[] stateBody =
        ByteBuffer.allocate(1 + 2 + 2 + 8 + 8 + 4 + 3 + 1)
            .put((byte) 2).putShort((short) 2).put(id).putLong(7).putLong(3).putInt(3)
            .put(new byte[] {9, 8, 7}).put((byte) 0xFF)
            .array();
    assertFrame(state.array(), stateBody);

    ByteBuffer completed = ByteBuffer.allocate(LogFormat.completedRecordSize(2));
    LogFormat.putCompleted(completed, crc, id, 6, 3);
    assertEquals(completed.capacity(), completed.position());
    byte[] completedBody =
        ByteBuffer.allocate(1 + 2 + 2 + 8 + 8 + 1)
            .put((byte) 3).putShort((short) 2).put(id).putLong(6).putLong(3).put((byte) 0xFF)
            .array();
    assertFrame(completed.array(), completedBody);
  }

  private static void assertFrame(byte[] record, byte[] body) {
    assertArrayEquals(TestLogs.frame(body), record);
    ByteBuffer b = ByteBuffer.wrap(record);
    assertEquals(body.length, b.getInt(0));
    assertEquals(crc(record, 0, 4), b.getInt(4));
    byte[] lengthAndBody = new byte[4 + body.length];
    System.arraycopy(record, 0, lengthAndBody, 0, 4);
    System.arraycopy(body, 0, lengthAndBody, 4, body.length);
    assertEquals(crc(lengthAndBody, 0, lengthAndBody.length), b.getInt(8));
  }
}
