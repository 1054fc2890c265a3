package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The scan of one segment: its header ({@link SegmentHeaderCheck}), then its records in order,
 * each frame checked and each intact body decoded ({@link RecordDecoder}), up to the segment's end
 * or the first record that fails its checks. A failed record of the last segment is a torn tail if
 * the rules of {@link LogFormat} ("Torn tails and damage") say so, or if it changed while it was
 * read (a live owner appending); at the end of the segment before the last it may be a torn seal;
 * anywhere else it is damage ({@link SegmentDamage}).
 */
final class SegmentScan {
  private final LogReader.SegmentFile file;
  private final boolean last;
  /** Whether this is the segment before the last: it may end in a torn seal. */
  private final boolean beforeLast;
  private final RecordVisitor visitor;
  /** The log id of the earlier segments (null for the first one), and where it was read. */
  private final String expectedLogId;
  private final Path expectedLogIdFile;
  private final SegmentBytes bytes;
  private final SegmentDamage damage;
  private final CRC32C crc = new CRC32C();

  final long size;
  long validEnd;
  long records;
  TornTail torn;
  /** Format version of the header, once read. */
  int version;
  /** Whether a SEAL record was read (it must be the segment's last record). */
  boolean sealed;
  /** A torn SEAL at the end of the segment before the last. */
  TornTail tornSeal;
  /** The log id of this segment's header, once read. */
  String logId;

  SegmentScan(LogReader.SegmentFile file, FileChannel ch, boolean last, boolean beforeLast,
      RecordVisitor visitor, String expectedLogId, Path expectedLogIdFile) throws IOException {
    this.file = file;
    this.last = last;
    this.beforeLast = beforeLast;
    this.visitor = visitor;
    this.expectedLogId = expectedLogId;
    this.expectedLogIdFile = expectedLogIdFile;
    this.bytes = new SegmentBytes(file.file(), ch);
    this.damage = new SegmentDamage(file.file(), last, bytes);
    this.size = bytes.size();
  }

  void run() throws IOException {
    SegmentHeaderCheck.Header header =
        new SegmentHeaderCheck(file, last, expectedLogId, expectedLogIdFile, bytes, damage).read();
    if (header.torn() != null) {
      torn = header.torn();
      validEnd = 0;
      return;
    }
    version = header.version();
    logId = header.logId();
    RecordDecoder decoder = new RecordDecoder(file, version, visitor, damage);
    long off = LogFormat.SEGMENT_HEADER_SIZE;
    validEnd = off;
    while (off < size) {
      if (sealed) {
        throw damage.corrupted("bytes after the SEAL record that ends the segment ("
            + (size - off)
            + " bytes): nothing is written to a segment once it is sealed, so they were added"
            + " or damaged afterwards. " + damage.steps(off), off);
      }
      long avail = size - off;
      String problem;
      boolean lengthTrusted = false;
      int len = 0;
      int lenCrc = 0;
      int recordCrc = 0;
      int bodyCrc = 0;
      boolean bodyRead = false;
      if (avail < LogFormat.RECORD_HEADER_SIZE) {
        problem = "incomplete record frame (" + avail + " of " + LogFormat.RECORD_HEADER_SIZE
            + " bytes) at the end of the segment";
      } else {
        ByteBuffer frame = bytes.bytes(off, LogFormat.RECORD_HEADER_SIZE);
        len = frame.getInt();
        lenCrc = frame.getInt();
        recordCrc = frame.getInt();
        if (LogFormat.lengthCrc(crc, len) != lenCrc) {
          problem = "record length checksum mismatch";
        } else if (len < 2 || len > LogFormat.MAX_BODY_LENGTH) {
          problem = "invalid record length " + len;
        } else if (len > avail - LogFormat.RECORD_HEADER_SIZE) {
          lengthTrusted = true;
          problem = "record of " + len + " bytes runs past the end of the segment ("
              + (avail - LogFormat.RECORD_HEADER_SIZE) + " bytes left)";
        } else {
          lengthTrusted = true;
          ByteBuffer body = bytes.bytes(off + LogFormat.RECORD_HEADER_SIZE, len);
          // crc holds the CRC of the length bytes: continue with the body.
          crc.update(body.duplicate());
          bodyCrc = (int) crc.getValue();
          bodyRead = true;
          if (bodyCrc != recordCrc) {
            problem = "record checksum mismatch";
          } else {
            sealed = decoder.decode(body, off);
            problem = null;
          }
        }
      }
      if (problem != null) {
        if (last && isTorn(off, lengthTrusted, len)) {
          torn = new TornTail(
              file.file(), off, size, false, problem, bytes.zeroTailStart() <= off);
          return;
        }
        if (last && recordChanged(off, len, lenCrc, recordCrc, bodyRead, bodyCrc)) {
          // A live owner is appending here: what precedes is intact, this record in progress.
          torn = new TornTail(file.file(), off, size, false,
              problem + ", and the record changed while it was read: an append in progress", false);
          return;
        }
        if (beforeLast && version >= LogFormat.SEALED_SINCE_VERSION
            && size - off <= LogFormat.sealRecordSize()
            && (!lengthTrusted || len == LogFormat.sealRecordSize() - LogFormat.RECORD_HEADER_SIZE)
            && isTorn(off, lengthTrusted, len)) {
          // A roll's seal whose write a crash interrupted; the successor is complete.
          tornSeal = new TornTail(
              file.file(), off, size, false, problem, bytes.zeroTailStart() <= off);
          return;
        }
        throw damage.damaged(problem, off, lengthTrusted);
      }
      off += LogFormat.RECORD_HEADER_SIZE + len;
      validEnd = off;
      records++;
    }
  }

  /**
   * Whether the failed record at {@code off} of the last segment reads differently now: a live
   * owner wrote it after this scan buffered the bytes there (as zeros, or half written) but
   * before {@link SegmentBytes#zeroTailStart()} looked past them, so the record only seems to
   * be followed by written bytes. The owner appends in order, from where its records end, so a
   * record written meanwhile changes the bytes at {@code off}. Nothing changes for a log nobody
   * writes.
   */
  private boolean recordChanged(
      long off, int len, int lenCrc, int recordCrc, boolean bodyRead, int bodyCrc)
      throws IOException {
    if (size - off < LogFormat.RECORD_HEADER_SIZE) {
      return false;
    }
    ByteBuffer frame = bytes.readFresh(off, LogFormat.RECORD_HEADER_SIZE);
    if (frame.getInt() != len || frame.getInt() != lenCrc || frame.getInt() != recordCrc) {
      return true;
    }
    if (!bodyRead) {
      return false; // the frame alone failed, and it reads the same
    }
    LogFormat.lengthCrc(crc, len);
    crc.update(bytes.readFresh(off + LogFormat.RECORD_HEADER_SIZE, len));
    return (int) crc.getValue() != bodyCrc;
  }

  /**
   * Whether the failed record at {@code off} of the last segment is a torn append: the rules of
   * {@link LogFormat} ("Torn tails and damage").
   */
  private boolean isTorn(long off, boolean lengthTrusted, int len) throws IOException {
    if (size - off < LogFormat.RECORD_HEADER_SIZE) {
      return true;
    }
    long z = bytes.zeroTailStart();
    if (z < off + LogFormat.RECORD_HEADER_SIZE) {
      return true; // the written bytes end inside the frame; zeros (or nothing) follow
    }
    if (!lengthTrusted) {
      return false;
    }
    long end = off + LogFormat.RECORD_HEADER_SIZE + len;
    // Past the end of the file, or its last byte (END, never zero) not written.
    return end > size || z < end;
  }
}
