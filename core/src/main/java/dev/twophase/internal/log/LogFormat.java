package dev.twophase.internal.log;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The on-disk format of the file state log, version 1. All integers are big-endian; all checksums
 * are CRC32C ({@link CRC32C}).
 *
 * <h2>Directory</h2>
 * <ul>
 *   <li>{@code LOCK}: empty; an exclusive OS file lock on it marks the owner process.
 *   <li>{@code segment-<seq>.log}: segments, {@code <seq>} a 20-digit zero-padded decimal sequence
 *       number. They are read in sequence order; later records supersede earlier ones. Only the
 *       last segment is ever appended to; a segment is forced entirely before the next one is
 *       created, so every segment but the last is complete. Other files are ignored.
 * </ul>
 *
 * <h2>Segment header (24 bytes)</h2>
 * <pre>
 *   offset 0   8 bytes  magic "TWOPHLOG" (ASCII)
 *   offset 8   int      format version (1)
 *   offset 12  long     segment sequence number (equals the one in the file name)
 *   offset 20  int      CRC32C of bytes 0..19
 * </pre>
 *
 * <h2>Record (12-byte frame + body)</h2>
 * <pre>
 *   int  bodyLength   length of body in bytes, 1 .. {@link #MAX_BODY_LENGTH}
 *   int  lengthCrc    CRC32C of the 4 bodyLength bytes
 *   int  crc          CRC32C of the 4 bodyLength bytes followed by the body
 *   body bodyLength bytes: [byte type][fields]
 * </pre>
 * The separate {@code lengthCrc} lets a reader trust a length before it has read the body, so a
 * damaged length in the middle of a segment is reported as corruption instead of being mistaken for
 * a record that runs past the end of the file (a torn write).
 *
 * <p>Record types and their fields ({@code id} = {@code unsigned short} length, then that many
 * UTF-8 bytes of the coordinator id, 1..255 bytes):
 * <pre>
 *   1 OWNER      long epoch                                a new owner claimed the log
 *   2 STATE      id, long checkpointId, long epoch,        a coordinator's state; the last one
 *                int payloadLength, payload bytes          of a coordinator wins
 *   3 COMPLETED  id, long checkpointId, long epoch         completion mark; the highest one wins
 * </pre>
 * The body length must equal what its fields need; anything else is corruption.
 *
 * <h2>Torn tails and corruption</h2>
 * A record that fails its checks is a torn tail (cut off by the owner, reported as "in progress" by
 * the inspector) only in the last segment and only if nothing was written after it: its frame is
 * incomplete, or the non-zero bytes end inside its frame, or its checked length reaches past the end
 * of the file, or every byte after its claimed end is zero. Everything else is corruption. A last
 * segment whose header is incomplete (with no non-zero bytes past the header area) holds nothing
 * and is dropped.
 */
public final class LogFormat {

  /** Magic bytes at the start of every segment. */
  public static final byte[] MAGIC = "TWOPHLOG".getBytes(StandardCharsets.US_ASCII);

  /** The format version this release writes and reads. */
  public static final int VERSION = 1;

  public static final int SEGMENT_HEADER_SIZE = 24;
  public static final int RECORD_HEADER_SIZE = 12;

  /** Largest accepted record body. */
  public static final int MAX_BODY_LENGTH = Integer.MAX_VALUE - 64;

  public static final byte TYPE_OWNER = 1;
  public static final byte TYPE_STATE = 2;
  public static final byte TYPE_COMPLETED = 3;

  /** Longest coordinator id, in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 255;

  public static final String LOCK_FILE = "LOCK";

  private static final String SEGMENT_PREFIX = "segment-";
  private static final String SEGMENT_SUFFIX = ".log";
  private static final int SEQUENCE_DIGITS = 20;

  private LogFormat() {}

  /** The file name of segment {@code sequence}. */
  public static String segmentFileName(long sequence) {
    String digits = Long.toString(sequence);
    StringBuilder sb = new StringBuilder(SEGMENT_PREFIX.length() + SEQUENCE_DIGITS + 4);
    sb.append(SEGMENT_PREFIX);
    for (int i = digits.length(); i < SEQUENCE_DIGITS; i++) {
      sb.append('0');
    }
    return sb.append(digits).append(SEGMENT_SUFFIX).toString();
  }

  /** The sequence number named by a segment file name, or -1 if it is not one. */
  public static long parseSegmentFileName(String name) {
    if (name.length() != SEGMENT_PREFIX.length() + SEQUENCE_DIGITS + SEGMENT_SUFFIX.length()
        || !name.startsWith(SEGMENT_PREFIX)
        || !name.endsWith(SEGMENT_SUFFIX)) {
      return -1;
    }
    String digits = name.substring(SEGMENT_PREFIX.length(), SEGMENT_PREFIX.length() + SEQUENCE_DIGITS);
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return -1;
      }
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1; // beyond Long.MAX_VALUE
    }
  }

  // ---------------------------------------------------------------- sizes

  public static int ownerRecordSize() {
    return RECORD_HEADER_SIZE + 1 + 8;
  }

  public static int stateRecordSize(int idBytes, int payloadBytes) {
    long size = (long) RECORD_HEADER_SIZE + 1 + 2 + idBytes + 8 + 8 + 4 + payloadBytes;
    if (size - RECORD_HEADER_SIZE > MAX_BODY_LENGTH) {
      throw new IllegalArgumentException(
          "payload too large for one state log record: " + payloadBytes + " bytes");
    }
    return (int) size;
  }

  public static int completedRecordSize(int idBytes) {
    return RECORD_HEADER_SIZE + 1 + 2 + idBytes + 8 + 8;
  }

  // ---------------------------------------------------------------- encoding

  /** Writes a segment header at {@code buf}'s position. */
  public static void putSegmentHeader(ByteBuffer buf, CRC32C crc, long sequence) {
    checkOrder(buf);
    int start = buf.position();
    buf.put(MAGIC).putInt(VERSION).putLong(sequence);
    int limit = buf.limit();
    crc.reset();
    buf.limit(start + 20).position(start);
    crc.update(buf);
    buf.limit(limit);
    buf.putInt((int) crc.getValue());
  }

  /** Writes an OWNER record at {@code buf}'s position. */
  public static void putOwner(ByteBuffer buf, CRC32C crc, long epoch) {
    int start = beginRecord(buf, ownerRecordSize());
    buf.put(TYPE_OWNER).putLong(epoch);
    endRecord(buf, crc, start);
  }

  /** Writes a STATE record at {@code buf}'s position. */
  public static void putState(
      ByteBuffer buf, CRC32C crc, byte[] id, long checkpointId, long epoch, byte[] payload) {
    int start = beginRecord(buf, stateRecordSize(id.length, payload.length));
    buf.put(TYPE_STATE).putShort((short) id.length).put(id);
    buf.putLong(checkpointId).putLong(epoch).putInt(payload.length).put(payload);
    endRecord(buf, crc, start);
  }

  /** Writes a COMPLETED record at {@code buf}'s position. */
  public static void putCompleted(
      ByteBuffer buf, CRC32C crc, byte[] id, long checkpointId, long epoch) {
    int start = beginRecord(buf, completedRecordSize(id.length));
    buf.put(TYPE_COMPLETED).putShort((short) id.length).put(id);
    buf.putLong(checkpointId).putLong(epoch);
    endRecord(buf, crc, start);
  }

  private static int beginRecord(ByteBuffer buf, int size) {
    checkOrder(buf);
    int start = buf.position();
    buf.putInt(size - RECORD_HEADER_SIZE).putInt(0).putInt(0);
    return start;
  }

  /** Fills in the two checksums, without allocating: the buffer's limit is borrowed and restored. */
  private static void endRecord(ByteBuffer buf, CRC32C crc, int start) {
    int end = buf.position();
    int limit = buf.limit();
    crc.reset();
    buf.limit(start + 4).position(start);
    crc.update(buf);
    int lengthCrc = (int) crc.getValue();
    // The record CRC continues from the length bytes over the body.
    buf.limit(end).position(start + RECORD_HEADER_SIZE);
    crc.update(buf);
    int recordCrc = (int) crc.getValue();
    buf.limit(limit).position(end);
    buf.putInt(start + 4, lengthCrc);
    buf.putInt(start + 8, recordCrc);
  }

  /** CRC32C of the four big-endian bytes of {@code length}. */
  public static int lengthCrc(CRC32C crc, int length) {
    crc.reset();
    crc.update(length >>> 24);
    crc.update(length >>> 16);
    crc.update(length >>> 8);
    crc.update(length);
    return (int) crc.getValue();
  }

  private static void checkOrder(ByteBuffer buf) {
    if (buf.order() != ByteOrder.BIG_ENDIAN) {
      throw new IllegalArgumentException("buffer must be big-endian");
    }
  }
}
