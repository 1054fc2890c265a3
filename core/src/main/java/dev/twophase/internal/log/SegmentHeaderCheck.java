package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads and checks the header of one segment, and its log id against that of the earlier
 * segments: a complete header, the incomplete header of a last segment being created (a torn
 * tail), or damage ({@link SegmentDamage}). The rules are those of {@link LogFormat}, "Torn tails
 * and damage".
 */
final class SegmentHeaderCheck {

  /**
   * A header as read.
   *
   * @param version its format version (0 if the header is torn)
   * @param logId its log id (null if the header is torn)
   * @param torn the torn tail if the segment is a torn (empty) last segment, else null
   */
  record Header(int version, String logId, TornTail torn) {}

  private final LogReader.SegmentFile file;
  private final boolean last;
  /** The log id of the earlier segments (null for the first one), and where it was read. */
  private final String expectedLogId;
  private final Path expectedLogIdFile;
  private final SegmentBytes bytes;
  private final SegmentDamage damage;
  private final long size;
  private final CRC32C crc = new CRC32C();

  SegmentHeaderCheck(LogReader.SegmentFile file, boolean last, String expectedLogId,
      Path expectedLogIdFile, SegmentBytes bytes, SegmentDamage damage) {
    this.file = file;
    this.last = last;
    this.expectedLogId = expectedLogId;
    this.expectedLogIdFile = expectedLogIdFile;
    this.bytes = bytes;
    this.damage = damage;
    this.size = bytes.size();
  }

  /**
   * Reads and checks the segment header, and its log id against that of the earlier segments.
   * Returns a header with a torn tail if the segment is a torn (empty) last segment.
   */
  Header read() throws IOException {
    int have = (int) Math.min(size, LogFormat.SEGMENT_HEADER_SIZE);
    ByteBuffer header = bytes.bytes(0, have);
    boolean magic = startsWithMagic(header);
    int stored = have >= 12 ? header.getInt(8) : 0;
    if (have == LogFormat.SEGMENT_HEADER_SIZE && magic && readable(stored)
        && headerCrcMatches(header, stored)) {
      if (header.getLong(12) != file.sequence()) {
        throw damage.corrupted("segment header names sequence " + header.getLong(12)
            + " but the file name says " + file.sequence() + ": the file was renamed or"
            + " damaged. " + damage.steps(0, false), 0);
      }
      String id = ascii(header, LogFormat.LOG_ID_OFFSET, LogFormat.LOG_ID_LENGTH);
      if (!LogFormat.isLogId(id)) {
        throw damage.corrupted("malformed segment header with a valid checksum: its log id is not "
            + LogFormat.LOG_ID_LENGTH + " characters of [a-z0-9]. " + damage.steps(0, false), 0);
      }
      if (expectedLogId != null && !expectedLogId.equals(id)) {
        throw damage.corrupted("the segment belongs to the state log with id " + id + ", but "
            + expectedLogIdFile.getFileName() + " to the log with id " + expectedLogId
            + ": segments of two logs are mixed in one directory. Nothing was changed: move"
            + " the other log's segments out (a segment's log id is in bytes "
            + LogFormat.LOG_ID_OFFSET + " to " + (LogFormat.LOG_ID_OFFSET + LogFormat.LOG_ID_LENGTH - 1)
            + " of its header)", 0);
      }
      return new Header(stored, id, null);
    }
    if (last) {
      long z = bytes.zeroTailStart();
      if (z < LogFormat.SEGMENT_HEADER_SIZE && isHeaderStart(header, (int) z)) {
        return new Header(0, null, new TornTail(file.file(), 0, size, true,
            "incomplete segment header (" + z + " of " + LogFormat.SEGMENT_HEADER_SIZE
                + " bytes written)", false));
      }
    }
    if (last && !bytes.readFresh(0, have).equals(header)) {
      // A live owner is creating this segment: it holds nothing yet.
      return new Header(0, null, new TornTail(file.file(), 0, size, true,
          "segment header changed while it was read: a segment being created", false));
    }
    if (!magic) {
      throw damage.corrupted("not a twophase state log: the segment does not start with the magic bytes "
          + new String(LogFormat.MAGIC, StandardCharsets.US_ASCII) + ". Nothing was changed: a"
          + " file named like a segment that twophase did not write; move it out of the log"
          + " directory", 0);
    }
    if (have < 12) {
      throw damage.corrupted("incomplete segment header (" + have + " bytes)" + damage.where() + ". "
          + damage.steps(0, false), 0);
    }
    int version = header.getInt(8);
    if (!readable(version)) {
      for (int v = LogFormat.OLDEST_READ_VERSION; v <= LogFormat.VERSION; v++) {
        if (have == LogFormat.SEGMENT_HEADER_SIZE && headerCrcMatches(header, v)) {
          throw damage.corrupted("segment header checksum mismatch (its format version field reads "
              + version + ")" + damage.where() + ". " + damage.steps(0, false), 0);
        }
      }
      if (version > LogFormat.VERSION) {
        throw damage.corrupted("the segment has format version " + version + ": it was written by a"
            + " newer version of twophase (this version reads format " + LogFormat.VERSION
            + "). Nothing was changed: open the log with the version of twophase that wrote it,"
            + " or a later one", 0);
      }
      throw damage.corrupted("the segment has format version " + version + ": it was written by an"
          + " older version of twophase, whose format this version does not read (it reads"
          + " formats " + LogFormat.OLDEST_READ_VERSION + " to " + LogFormat.VERSION + "). Nothing was changed: finish the log's"
          + " coordinators with the version that wrote it, then start them on a new log", 0);
    }
    if (have < LogFormat.SEGMENT_HEADER_SIZE) {
      throw damage.corrupted("incomplete segment header (" + have + " of "
          + LogFormat.SEGMENT_HEADER_SIZE + " bytes)" + damage.where() + ". " + damage.steps(0, false), 0);
    }
    throw damage.corrupted("segment header checksum mismatch" + damage.where() + ". " + damage.steps(0, false), 0);
  }

  private static boolean readable(int version) {
    return version >= LogFormat.OLDEST_READ_VERSION && version <= LogFormat.VERSION;
  }

  private static boolean startsWithMagic(ByteBuffer header) {
    int n = Math.min(header.remaining(), LogFormat.MAGIC.length);
    for (int i = 0; i < n; i++) {
      if (header.get(i) != LogFormat.MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether the stored checksum of a complete header matches it, its version read as given. */
  private boolean headerCrcMatches(ByteBuffer header, int version) {
    ByteBuffer b = ByteBuffer.allocate(LogFormat.SEGMENT_HEADER_SIZE - 4);
    b.put(header.duplicate().limit(LogFormat.SEGMENT_HEADER_SIZE - 4));
    b.putInt(8, version);
    crc.reset();
    crc.update(b.flip());
    return (int) crc.getValue() == header.getInt(LogFormat.SEGMENT_HEADER_SIZE - 4);
  }

  /**
   * Whether the first {@code n} bytes of {@code header} are the start of a header of this
   * segment: magic, version, sequence number, and a log id (the earlier segments' if known).
   */
  private boolean isHeaderStart(ByteBuffer header, int n) {
    ByteBuffer template = ByteBuffer.allocate(LogFormat.SEGMENT_HEADER_SIZE);
    LogFormat.putSegmentHeader(template, new CRC32C(), file.sequence(),
        expectedLogId != null ? expectedLogId : "00000000");
    for (int i = 0; i < n; i++) {
      byte b = header.get(i);
      if (i < LogFormat.LOG_ID_OFFSET) {
        if (b != template.get(i)) {
          return false;
        }
      } else if (i < LogFormat.LOG_ID_OFFSET + LogFormat.LOG_ID_LENGTH) {
        if (expectedLogId != null ? b != template.get(i) : !LogFormat.isLogIdChar(b)) {
          return false;
        }
      } else if (expectedLogId != null && b != template.get(i)) {
        return false; // the checksum, known once the log id is
      }
    }
    return true;
  }

  private static String ascii(ByteBuffer b, int from, int length) {
    byte[] bytes = new byte[length];
    b.duplicate().position(from).get(bytes);
    return new String(bytes, StandardCharsets.US_ASCII);
  }
}
