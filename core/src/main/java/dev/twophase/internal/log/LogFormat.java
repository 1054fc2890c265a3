package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.zip.CRC32C;

/**
 * The on-disk format of the file state log, version 3 (version 2, without seals, is read too).
 * All integers are big-endian; all checksums are CRC32C ({@link CRC32C}).
 *
 * <h2>Directory</h2>
 * <ul>
 *   <li>{@code LOCK}: empty; an exclusive OS file lock on it marks the owner process.
 *   <li>{@code segment-<seq>.log}: segments, {@code <seq>} a 20-digit zero-padded decimal sequence
 *       number. They are read in sequence order; later records supersede earlier ones. Only the
 *       last segment is ever appended to; a segment is synced entirely before the next one is
 *       created, so every segment but the last is complete. Sequence numbers have no gaps. Other
 *       files are ignored.
 * </ul>
 *
 * <h2>Segment header (32 bytes)</h2>
 * <pre>
 *   offset 0   8 bytes  magic "TWOPHLOG" (ASCII)
 *   offset 8   int      format version (3; 2 is read too)
 *   offset 12  long     segment sequence number (equals the one in the file name)
 *   offset 20  8 bytes  log id: 8 ASCII characters of [a-z0-9], the same in every segment
 *   offset 28  int      CRC32C of bytes 0..27
 * </pre>
 * The magic and the version field keep their place in every format version, so that a reader
 * can tell a segment of a newer version from a damaged one. A format that adds record types or
 * fields raises the version, so an unknown record type in a segment of this version is damage. The log id is chosen at random when
 * the log's first segment is created and copied into every later segment (see {@link #newLogId}).
 *
 * <h2>Record (12-byte frame + body)</h2>
 * <pre>
 *   int  bodyLength   length of body in bytes, 2 .. {@link #MAX_BODY_LENGTH}
 *   int  lengthCrc    CRC32C of the 4 bodyLength bytes
 *   int  crc          CRC32C of the 4 bodyLength bytes followed by the body
 *   body bodyLength bytes: [byte type][fields][byte 0xFF]
 * </pre>
 * The separate {@code lengthCrc} lets a reader trust a length before it has read the body, so a
 * damaged length in the middle of a segment is reported as corruption instead of being mistaken for
 * a record that runs past the end of the file (a torn write). The last byte of every record,
 * {@link #END}, is never zero: a record whose last byte reached the file was written to its end
 * (see the rules below).
 *
 * <p>Record types and their fields ({@code id} = {@code unsigned short} length, then that many
 * UTF-8 bytes of the coordinator id, 1..255 bytes):
 * <pre>
 *   1 OWNER      long epoch                                a new owner claimed the log
 *   2 STATE      id, long checkpointId, long epoch,        a coordinator's state; the last one
 *                int payloadLength, payload bytes          of a coordinator wins
 *   3 COMPLETED  id, long checkpointId, long epoch         completion mark; the highest one wins
 *   4 SEAL       long nextSequence                         the segment is complete and segment
 *                                                          nextSequence holds everything it held
 * </pre>
 * The body length must equal what its fields need; anything else is corruption.
 *
 * <h2>Seals: a missing segment is detected</h2>
 * A roll from segment {@code n} (see {@code Compactor}) creates segment {@code n + 1} complete
 * (header, OWNER, the live state), syncs it and the directory, and only then appends to segment
 * {@code n} a SEAL naming {@code n + 1} and syncs it; nothing is appended to {@code n + 1} before
 * that. Then the segments before {@code n + 1} are deleted, oldest first. So:
 * <ul>
 *   <li>A sealed segment's successor exists. A sealed last segment means the newest segment is
 *       missing, with the newest records of the log: corruption. So is a gap in the sequence
 *       numbers (a missing middle segment): a roll creates {@code n + 1} and deletions go oldest
 *       first, so no crash leaves one.
 *   <li>An unsealed segment followed by exactly one segment is a roll a crash interrupted before
 *       the seal (or during its write: the segment then ends in at most a SEAL record's bytes that
 *       are torn by the rules below). Its successor holds nothing the segments before it do not
 *       hold, and may itself be incomplete (its sync may not have happened), so the owner keeps
 *       both, cuts the torn seal off and seals the segment before it appends anything. An
 *       unsealed segment followed by two is corruption.
 *   <li>The SEAL is the last record of its segment: anything after it is corruption.
 *   <li>The seal must not come first: a segment sealed before its successor existed would, after
 *       a crash, be indistinguishable from one whose successor was deleted.
 * </ul>
 * A segment of format 2 has no seal; what follows it is taken as it is. Opening a log that holds
 * one rolls it to a segment of format 3 at once, which deletes it.
 *
 * <h2>Torn tails and damage</h2>
 * What a crash can leave at the end of the last segment, and what the reader cuts off: a crash
 * of the process keeps every byte written before it (the page cache survives) and, of a write in
 * progress, a prefix; a power loss keeps what was synced and of the rest some prefix as well, as
 * long as the device writes a write's sectors in order. Every write goes to the end of the
 * records, into space that holds zeros (written ahead, see {@code SegmentIo}) or past the end of
 * the file. So after a crash, the records end with an intact record, possibly followed by a
 * prefix of the records of the last write (several, under group commit), then zeros or the end of
 * the file; the record where the prefix ends is whole up to some byte and zero (or missing) from
 * there on, and nothing but zeros follows it.
 *
 * <p>Hence a record of the last segment that fails its checks is a <b>torn append</b> (cut off by
 * the owner, reported as "in progress" by the inspector) only if one of these holds, where "the
 * written bytes end" is the offset after the last non-zero byte of the file:
 * <ol>
 *   <li>fewer than the 12 bytes of its frame remain in the file;
 *   <li>the written bytes end inside its frame;
 *   <li>its length passes {@code lengthCrc} and the record reaches past the end of the file;
 *   <li>its length passes {@code lengthCrc} and the written bytes end inside the record: its
 *       last byte, {@link #END}, was never written.
 * </ol>
 * Anything else is <b>damage</b>: bytes changed after they were written. In particular a record
 * whose length passes its check, whose last byte is there and whose checksum fails (a bit flipped
 * in an acknowledged record followed by the zeros written ahead, or by more records), and a frame
 * whose length fails its check followed by written bytes; also any failure in a segment that is
 * not the last one. A single flipped bit can never look torn: it cannot zero the end marker (0xFF
 * needs eight), and a length that fails its check is followed by the record's own bytes. Zeros
 * alone after the last intact record are space written ahead, not a record.
 *
 * <p>A device that writes the sectors of one write out of order, losing an earlier sector and
 * keeping a later one, can leave a record whose end is written but whose middle is zeros; the
 * reader cannot tell that from damage, and refuses it (see docs/state-log.md for what to do).
 *
 * <p>A last segment whose header is incomplete (its written bytes end inside the header, and
 * those there are the start of a header for this sequence number and this log) holds nothing and
 * is dropped; the same in a segment that is not the last one is damage.
 */
@Internal
public final class LogFormat {

  /** Magic bytes at the start of every segment. */
  public static final byte[] MAGIC = "TWOPHLOG".getBytes(StandardCharsets.US_ASCII);

  /** The format version this release writes (and the newest it reads). */
  public static final int VERSION = 3;

  /** The oldest format version this release reads: 2, which has no {@link #TYPE_SEAL}. */
  public static final int OLDEST_READ_VERSION = 2;

  /** The first format version with {@link #TYPE_SEAL}: a roll seals segments of it and later. */
  public static final int SEALED_SINCE_VERSION = 3;

  public static final int SEGMENT_HEADER_SIZE = 32;
  public static final int RECORD_HEADER_SIZE = 12;

  /** Offset of the log id in the segment header. */
  public static final int LOG_ID_OFFSET = 20;

  /** Length of a log id. */
  public static final int LOG_ID_LENGTH = 8;

  /** The last byte of every record body: never zero, so that a torn append cannot end with it. */
  public static final byte END = (byte) 0xFF;

  /** Largest accepted record body. */
  public static final int MAX_BODY_LENGTH = Integer.MAX_VALUE - 64;

  public static final byte TYPE_OWNER = 1;
  public static final byte TYPE_STATE = 2;
  public static final byte TYPE_COMPLETED = 3;
  /** Since format 3. */
  public static final byte TYPE_SEAL = 4;

  /** Longest coordinator id, in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 255;

  public static final String LOCK_FILE = "LOCK";

  private static final String SEGMENT_PREFIX = "segment-";
  private static final String SEGMENT_SUFFIX = ".log";
  private static final int SEQUENCE_DIGITS = 20;
  private static final String LOG_ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private LogFormat() {}

  /**
   * A new log id: {@link #LOG_ID_LENGTH} characters drawn uniformly from {@code [a-z0-9]} by a
   * {@link SecureRandom} (about 41 bits), so that two logs almost never share one.
   */
  public static String newLogId() {
    char[] id = new char[LOG_ID_LENGTH];
    for (int i = 0; i < id.length; i++) {
      id[i] = LOG_ID_CHARS.charAt(RANDOM.nextInt(LOG_ID_CHARS.length()));
    }
    return new String(id);
  }

  /** Whether {@code id} is a well-formed log id: {@link #LOG_ID_LENGTH} characters of {@code [a-z0-9]}. */
  public static boolean isLogId(String id) {
    if (id == null || id.length() != LOG_ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      if (!isLogIdChar(id.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  static boolean isLogIdChar(int c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

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
    return RECORD_HEADER_SIZE + 1 + 8 + 1;
  }

  public static int sealRecordSize() {
    return RECORD_HEADER_SIZE + 1 + 8 + 1;
  }

  public static int stateRecordSize(int idBytes, int payloadBytes) {
    long size = (long) RECORD_HEADER_SIZE + 1 + 2 + idBytes + 8 + 8 + 4 + payloadBytes + 1;
    if (size - RECORD_HEADER_SIZE > MAX_BODY_LENGTH) {
      throw new IllegalArgumentException(
          "payload too large for one state log record: " + payloadBytes + " bytes");
    }
    return (int) size;
  }

  public static int completedRecordSize(int idBytes) {
    return RECORD_HEADER_SIZE + 1 + 2 + idBytes + 8 + 8 + 1;
  }

  // ---------------------------------------------------------------- encoding

  /** Writes a segment header at {@code buf}'s position. */
  public static void putSegmentHeader(ByteBuffer buf, CRC32C crc, long sequence, String logId) {
    checkOrder(buf);
    if (!isLogId(logId)) {
      throw new IllegalArgumentException("not a log id: " + logId);
    }
    int start = buf.position();
    buf.put(MAGIC).putInt(VERSION).putLong(sequence).put(logId.getBytes(StandardCharsets.US_ASCII));
    int limit = buf.limit();
    crc.reset();
    buf.limit(start + SEGMENT_HEADER_SIZE - 4).position(start);
    crc.update(buf);
    buf.limit(limit);
    buf.putInt((int) crc.getValue());
  }

  /** Writes an OWNER record at {@code buf}'s position. */
  public static void putOwner(ByteBuffer buf, CRC32C crc, long epoch) {
    int start = beginRecord(buf, ownerRecordSize());
    buf.put(TYPE_OWNER).putLong(epoch).put(END);
    endRecord(buf, crc, start);
  }

  /** Writes a SEAL record naming segment {@code nextSequence} at {@code buf}'s position. */
  public static void putSeal(ByteBuffer buf, CRC32C crc, long nextSequence) {
    int start = beginRecord(buf, sealRecordSize());
    buf.put(TYPE_SEAL).putLong(nextSequence).put(END);
    endRecord(buf, crc, start);
  }

  /** Writes a STATE record at {@code buf}'s position. */
  public static void putState(
      ByteBuffer buf, CRC32C crc, byte[] id, long checkpointId, long epoch, byte[] payload) {
    int start = beginRecord(buf, stateRecordSize(id.length, payload.length));
    buf.put(TYPE_STATE).putShort((short) id.length).put(id);
    buf.putLong(checkpointId).putLong(epoch).putInt(payload.length).put(payload).put(END);
    endRecord(buf, crc, start);
  }

  /** Writes a COMPLETED record at {@code buf}'s position. */
  public static void putCompleted(
      ByteBuffer buf, CRC32C crc, byte[] id, long checkpointId, long epoch) {
    int start = beginRecord(buf, completedRecordSize(id.length));
    buf.put(TYPE_COMPLETED).putShort((short) id.length).put(id);
    buf.putLong(checkpointId).putLong(epoch).put(END);
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
