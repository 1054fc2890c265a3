package dev.twophase.internal.log;

import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads the segments of a state log directory in order and hands every intact record to a
 * {@link RecordVisitor}. It changes nothing on disk: a torn tail of the last segment is reported in
 * the {@link Result}, corruption anywhere else throws {@link StateLogCorruptedException}, and so
 * does a missing segment (a sealed last segment, a gap in the sequence numbers). The rules are
 * those of {@link LogFormat}, "Torn tails and damage" and "Seals".
 */
final class LogReader {

  private static final int READ_BUFFER = 64 * 1024;

  private LogReader() {}

  /**
   * A segment as read.
   *
   * @param version its format version (0 if its header is incomplete)
   * @param sealed whether it ends with a SEAL record
   */
  record ScannedSegment(long sequence, Path file, long size, long validEnd, long records,
      int version, boolean sealed) {}

  /**
   * What a scan found.
   *
   * @param logId the log id in the segment headers, or null if no segment has a complete header
   * @param unsealed the segment before the last if a roll to the last one was interrupted before
   *     it sealed it (format 3), else null; the owner seals it at open
   * @param tornSeal the torn SEAL record at the end of {@code unsealed}, if its write was
   *     interrupted, else null
   * @param oldFormat whether a segment of format 2 (without seals) is among the segments
   */
  record Result(List<ScannedSegment> segments, TornTail tornTail, String logId,
      ScannedSegment unsealed, TornTail tornSeal, boolean oldFormat) {}

  /** A segment became shorter while it was read: its owner cut off a torn tail. Read again. */
  static final class SegmentChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    SegmentChangedException(String message) {
      super(message);
    }
  }

  /** A segment file found in the directory. */
  record SegmentFile(long sequence, Path file) {}

  /** The segment files of {@code directory}, in sequence order. */
  static List<SegmentFile> listSegments(Path directory) throws IOException {
    List<SegmentFile> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      for (Path p : stream) {
        long seq = LogFormat.parseSegmentFileName(p.getFileName().toString());
        if (seq >= 0) {
          files.add(new SegmentFile(seq, p));
        }
      }
    }
    files.sort(Comparator.comparingLong(SegmentFile::sequence));
    return files;
  }

  /** Reads every segment of {@code directory}. */
  static Result scan(Path directory, RecordVisitor visitor) throws IOException {
    return scan(listSegments(directory), visitor);
  }

  static Result scan(List<SegmentFile> files, RecordVisitor visitor) throws IOException {
    checkNoGaps(files);
    List<ScannedSegment> segments = new ArrayList<>(files.size());
    TornTail torn = null;
    TornTail tornSeal = null;
    String logId = null;
    Path logIdFile = null;
    for (int i = 0; i < files.size(); i++) {
      SegmentFile f = files.get(i);
      try (FileChannel ch = FileChannel.open(f.file(), StandardOpenOption.READ)) {
        SegmentScan scan = new SegmentScan(f, ch, i == files.size() - 1, i == files.size() - 2,
            visitor, logId, logIdFile);
        scan.run();
        segments.add(new ScannedSegment(f.sequence(), f.file(), scan.size, scan.validEnd,
            scan.records, scan.version, scan.sealed));
        if (scan.torn != null) {
          torn = scan.torn;
        }
        if (scan.tornSeal != null) {
          tornSeal = scan.tornSeal;
        }
        if (logId == null && scan.logId != null) {
          logId = scan.logId;
          logIdFile = f.file();
        }
      }
    }
    ScannedSegment unsealed = checkSeals(segments, torn);
    boolean oldFormat = false;
    for (ScannedSegment seg : segments) {
      oldFormat |= seg.version() != 0 && seg.version() < LogFormat.SEALED_SINCE_VERSION;
    }
    return new Result(Collections.unmodifiableList(segments), torn, logId, unsealed,
        unsealed == null ? null : tornSeal, oldFormat);
  }

  /**
   * A gap in the sequence numbers is a missing segment: a roll creates the next number and
   * deletes the older segments oldest first, so no crash leaves one.
   */
  private static void checkNoGaps(List<SegmentFile> files) {
    for (int i = 1; i < files.size(); i++) {
      long before = files.get(i - 1).sequence();
      long after = files.get(i).sequence();
      if (after != before + 1) {
        Path missing = files.get(i).file().resolveSibling(LogFormat.segmentFileName(before + 1));
        throw new StateLogCorruptedException("state log segment " + missing.getFileName()
            + (after == before + 2 ? "" : " (and the " + (after - before - 2) + " after it)")
            + " is missing, between " + files.get(i - 1).file().getFileName() + " and "
            + files.get(i).file().getFileName() + ": a roll creates the next segment and deletes"
            + " the older ones oldest first, so no crash leaves a gap; the file was deleted or"
            + " moved. " + missingSteps(), missing, 0);
      }
    }
  }

  /**
   * The rules of {@link LogFormat} "Seals", once every segment is read: a sealed last segment
   * means the newest segment is missing; an unsealed segment (format 3) may be followed by one
   * segment only. Returns the segment before the last if it is unsealed (a roll a crash
   * interrupted), else null.
   */
  private static ScannedSegment checkSeals(List<ScannedSegment> segments, TornTail torn)
      throws IOException {
    int n = segments.size();
    if (n == 0) {
      return null;
    }
    ScannedSegment last = segments.get(n - 1);
    boolean lastEmpty = torn != null && torn.headerIncomplete() && torn.file().equals(last.file());
    if (lastEmpty && n >= 2 && segments.get(n - 2).sealed()) {
      ScannedSegment sealed = segments.get(n - 2);
      throw new StateLogCorruptedException("state log segment " + sealed.file().getFileName()
          + " is sealed, naming " + last.file().getFileName() + " as the segment that holds"
          + " everything it held, but that segment's header is incomplete: a roll syncs the new"
          + " segment completely before it seals the old one, so " + last.file().getFileName()
          + " was damaged or cut afterwards, and with it the log's newest records. "
          + missingSteps(), last.file(), 0);
    }
    if (last.sealed()) {
      Path next = last.file().resolveSibling(LogFormat.segmentFileName(last.sequence() + 1));
      if (Files.exists(next)) {
        // A live owner rolled while this read: the listing is out of date.
        throw new SegmentChangedException(
            "segment " + next + " was created while the log was read");
      }
      throw new StateLogCorruptedException("state log segment " + next.getFileName()
          + " is missing: the newest segment, " + last.file().getFileName() + ", is sealed, naming"
          + " it as the segment that holds everything it held and the records written after it"
          + " (a roll creates and syncs the new segment before it seals the old one, so no crash"
          + " leaves a sealed last segment); the file was deleted or moved, and with it the"
          + " decisions of the log's newest checkpoints. " + missingSteps(), next, 0);
    }
    ScannedSegment unsealed = null;
    for (int i = 0; i < n - 1; i++) {
      ScannedSegment seg = segments.get(i);
      if (seg.version() < LogFormat.SEALED_SINCE_VERSION || seg.sealed()) {
        continue; // format 2 has no seals
      }
      if (i < n - 2) {
        throw new StateLogCorruptedException("state log segment " + seg.file().getFileName()
            + " is not sealed, yet " + (n - 1 - i) + " segments follow it: a roll seals the old"
            + " segment before anything is appended to the new one, so the segment was cut or"
            + " damaged after it was sealed. " + missingSteps(), seg.file(), seg.validEnd());
      }
      unsealed = seg;
    }
    return unsealed;
  }

  /** What the operator does about a missing segment; nothing was changed. */
  private static String missingSteps() {
    return "Nothing was changed. To recover: stop, and copy the log directory aside; put the"
        + " missing segment back, or restore a copy of the directory at least as recent as the"
        + " loss (a file-system snapshot taken after the last append, say). Without it, the log"
        + " would open at an older checkpoint and recovery would abort what the newer ones decided:"
        + " finish the coordinators' transactions by hand and start on a new log, as for damage"
        + " in a segment that is not the last one (see \"Torn tail or corruption\" in"
        + " docs/state-log.md)";
  }

  /** The scan of one segment. */
  private static final class SegmentScan {
    private final SegmentFile file;
    private final FileChannel ch;
    private final boolean last;
    /** Whether this is the segment before the last: it may end in a torn seal. */
    private final boolean beforeLast;
    private final RecordVisitor visitor;
    /** The log id of the earlier segments (null for the first one), and where it was read. */
    private final String expectedLogId;
    private final Path expectedLogIdFile;
    private final long size;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buf = ByteBuffer.allocate(READ_BUFFER).limit(0);
    private long bufStart;
    private long zeroTailStart = -1;

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

    SegmentScan(SegmentFile file, FileChannel ch, boolean last, boolean beforeLast,
        RecordVisitor visitor, String expectedLogId, Path expectedLogIdFile) throws IOException {
      this.file = file;
      this.ch = ch;
      this.last = last;
      this.beforeLast = beforeLast;
      this.visitor = visitor;
      this.expectedLogId = expectedLogId;
      this.expectedLogIdFile = expectedLogIdFile;
      this.size = ch.size();
    }

    void run() throws IOException {
      if (!readHeader()) {
        return;
      }
      long off = LogFormat.SEGMENT_HEADER_SIZE;
      validEnd = off;
      while (off < size) {
        if (sealed) {
          throw corrupted("bytes after the SEAL record that ends the segment (" + (size - off)
              + " bytes): nothing is written to a segment once it is sealed, so they were added"
              + " or damaged afterwards. " + steps(off), off);
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
          ByteBuffer frame = bytes(off, LogFormat.RECORD_HEADER_SIZE);
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
            ByteBuffer body = bytes(off + LogFormat.RECORD_HEADER_SIZE, len);
            // crc holds the CRC of the length bytes: continue with the body.
            crc.update(body.duplicate());
            bodyCrc = (int) crc.getValue();
            bodyRead = true;
            if (bodyCrc != recordCrc) {
              problem = "record checksum mismatch";
            } else {
              parse(body, off);
              problem = null;
            }
          }
        }
        if (problem != null) {
          if (last && isTorn(off, lengthTrusted, len)) {
            torn = new TornTail(file.file(), off, size, false, problem, zeroTailStart() <= off);
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
            tornSeal = new TornTail(file.file(), off, size, false, problem, zeroTailStart() <= off);
            return;
          }
          throw damaged(problem, off, lengthTrusted);
        }
        off += LogFormat.RECORD_HEADER_SIZE + len;
        validEnd = off;
        records++;
      }
    }

    /**
     * Whether the failed record at {@code off} of the last segment reads differently now: a live
     * owner wrote it after this scan buffered the bytes there (as zeros, or half written) but
     * before {@link #zeroTailStart()} looked past them, so the record only seems to be followed by
     * written bytes. The owner appends in order, from where its records end, so a record written
     * meanwhile changes the bytes at {@code off}. Nothing changes for a log nobody writes.
     */
    private boolean recordChanged(
        long off, int len, int lenCrc, int recordCrc, boolean bodyRead, int bodyCrc)
        throws IOException {
      if (size - off < LogFormat.RECORD_HEADER_SIZE) {
        return false;
      }
      ByteBuffer frame = readFresh(off, LogFormat.RECORD_HEADER_SIZE);
      if (frame.getInt() != len || frame.getInt() != lenCrc || frame.getInt() != recordCrc) {
        return true;
      }
      if (!bodyRead) {
        return false; // the frame alone failed, and it reads the same
      }
      LogFormat.lengthCrc(crc, len);
      crc.update(readFresh(off + LogFormat.RECORD_HEADER_SIZE, len));
      return (int) crc.getValue() != bodyCrc;
    }

    /** Bytes {@code [pos, pos + n)} as the file holds them now, bypassing the scan's buffer. */
    private ByteBuffer readFresh(long pos, int n) throws IOException {
      ByteBuffer b = ByteBuffer.allocate(n);
      readFully(b, pos);
      return b.flip();
    }

    /** Fills {@code b}'s remaining space with the segment's bytes from offset {@code pos} on. */
    private void readFully(ByteBuffer b, long pos) throws IOException {
      for (long at = pos; b.hasRemaining(); ) {
        int r = ch.read(b, at);
        if (r < 0) {
          throw new SegmentChangedException("segment " + file.file() + " shrank to " + at
              + " bytes while it was read (expected " + size + ")");
        }
        at += r;
      }
    }

    /**
     * Reads and checks the segment header, and its log id against that of the earlier segments.
     * Returns false if the segment is a torn (empty) last segment.
     */
    private boolean readHeader() throws IOException {
      int have = (int) Math.min(size, LogFormat.SEGMENT_HEADER_SIZE);
      ByteBuffer header = bytes(0, have);
      boolean magic = startsWithMagic(header);
      int stored = have >= 12 ? header.getInt(8) : 0;
      if (have == LogFormat.SEGMENT_HEADER_SIZE && magic && readable(stored)
          && headerCrcMatches(header, stored)) {
        version = stored;
        if (header.getLong(12) != file.sequence()) {
          throw corrupted("segment header names sequence " + header.getLong(12)
              + " but the file name says " + file.sequence() + ": the file was renamed or"
              + " damaged. " + steps(0, false), 0);
        }
        String id = ascii(header, LogFormat.LOG_ID_OFFSET, LogFormat.LOG_ID_LENGTH);
        if (!LogFormat.isLogId(id)) {
          throw corrupted("malformed segment header with a valid checksum: its log id is not "
              + LogFormat.LOG_ID_LENGTH + " characters of [a-z0-9]. " + steps(0, false), 0);
        }
        if (expectedLogId != null && !expectedLogId.equals(id)) {
          throw corrupted("the segment belongs to the state log with id " + id + ", but "
              + expectedLogIdFile.getFileName() + " to the log with id " + expectedLogId
              + ": segments of two logs are mixed in one directory. Nothing was changed: move"
              + " the other log's segments out (a segment's log id is in bytes "
              + LogFormat.LOG_ID_OFFSET + " to " + (LogFormat.LOG_ID_OFFSET + LogFormat.LOG_ID_LENGTH - 1)
              + " of its header)", 0);
        }
        logId = id;
        return true;
      }
      if (last) {
        long z = zeroTailStart();
        if (z < LogFormat.SEGMENT_HEADER_SIZE && isHeaderStart(header, (int) z)) {
          torn = new TornTail(file.file(), 0, size, true,
              "incomplete segment header (" + z + " of " + LogFormat.SEGMENT_HEADER_SIZE
                  + " bytes written)", false);
          validEnd = 0;
          return false;
        }
      }
      if (last && !readFresh(0, have).equals(header)) {
        // A live owner is creating this segment: it holds nothing yet.
        torn = new TornTail(file.file(), 0, size, true,
            "segment header changed while it was read: a segment being created", false);
        validEnd = 0;
        return false;
      }
      if (!magic) {
        throw corrupted("not a twophase state log: the segment does not start with the magic bytes "
            + new String(LogFormat.MAGIC, StandardCharsets.US_ASCII) + ". Nothing was changed: a"
            + " file named like a segment that twophase did not write; move it out of the log"
            + " directory", 0);
      }
      if (have < 12) {
        throw corrupted("incomplete segment header (" + have + " bytes)" + where() + ". "
            + steps(0, false), 0);
      }
      int version = header.getInt(8);
      if (!readable(version)) {
        for (int v = LogFormat.OLDEST_READ_VERSION; v <= LogFormat.VERSION; v++) {
          if (have == LogFormat.SEGMENT_HEADER_SIZE && headerCrcMatches(header, v)) {
            throw corrupted("segment header checksum mismatch (its format version field reads "
                + version + ")" + where() + ". " + steps(0, false), 0);
          }
        }
        if (version > LogFormat.VERSION) {
          throw corrupted("the segment has format version " + version + ": it was written by a"
              + " newer version of twophase (this version reads format " + LogFormat.VERSION
              + "). Nothing was changed: open the log with the version of twophase that wrote it,"
              + " or a later one", 0);
        }
        throw corrupted("the segment has format version " + version + ": it was written by an"
            + " older version of twophase, whose format this version does not read (it reads"
            + " formats " + LogFormat.OLDEST_READ_VERSION + " to " + LogFormat.VERSION + "). Nothing was changed: finish the log's"
            + " coordinators with the version that wrote it, then start them on a new log", 0);
      }
      if (have < LogFormat.SEGMENT_HEADER_SIZE) {
        throw corrupted("incomplete segment header (" + have + " of "
            + LogFormat.SEGMENT_HEADER_SIZE + " bytes)" + where() + ". " + steps(0, false), 0);
      }
      throw corrupted("segment header checksum mismatch" + where() + ". " + steps(0, false), 0);
    }

    private static boolean readable(int version) {
      return version >= LogFormat.OLDEST_READ_VERSION && version <= LogFormat.VERSION;
    }

    private String where() {
      return last ? "" : " in a segment that is not the last one";
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

    /**
     * Whether the failed record at {@code off} of the last segment is a torn append: the rules of
     * {@link LogFormat} ("Torn tails and damage").
     */
    private boolean isTorn(long off, boolean lengthTrusted, int len) throws IOException {
      if (size - off < LogFormat.RECORD_HEADER_SIZE) {
        return true;
      }
      long z = zeroTailStart();
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

    private void parse(ByteBuffer body, long off) {
      int len = body.remaining();
      byte type = body.get();
      switch (type) {
        case LogFormat.TYPE_OWNER:
          if (len != 10) {
            throw malformed("OWNER", len, off);
          }
          long ownerEpoch = body.getLong();
          end("OWNER", body, len, off);
          visitor.owner(ownerEpoch);
          break;
        case LogFormat.TYPE_STATE: {
          String id = readId(body, 21, "STATE", len, off);
          long checkpointId = body.getLong();
          long epoch = body.getLong();
          int payloadLength = body.getInt();
          if (payloadLength != body.remaining() - 1 || checkpointId < 0) {
            throw malformed("STATE", len, off);
          }
          byte[] payload = new byte[payloadLength];
          body.get(payload);
          end("STATE", body, len, off);
          visitor.state(id, checkpointId, epoch, payload, file.file(), off,
              LogFormat.RECORD_HEADER_SIZE + len);
          break;
        }
        case LogFormat.TYPE_COMPLETED: {
          String id = readId(body, 17, "COMPLETED", len, off);
          long checkpointId = body.getLong();
          long epoch = body.getLong();
          if (body.remaining() != 1 || checkpointId < 0) {
            throw malformed("COMPLETED", len, off);
          }
          end("COMPLETED", body, len, off);
          visitor.completed(id, checkpointId, epoch);
          break;
        }
        case LogFormat.TYPE_SEAL:
          if (version >= LogFormat.SEALED_SINCE_VERSION) {
            if (len != LogFormat.sealRecordSize() - LogFormat.RECORD_HEADER_SIZE) {
              throw malformed("SEAL", len, off);
            }
            long next = body.getLong();
            end("SEAL", body, len, off);
            if (next != file.sequence() + 1) {
              throw corrupted("malformed SEAL record with a valid checksum: it names segment " + next
                  + ", not the next one, " + (file.sequence() + 1) + ": the record was written by a"
                  + " faulty writer. " + steps(off), off);
            }
            sealed = true;
            break;
          }
          // fall through: format 2 has no seals
        default:
          throw corrupted("unknown state log record type " + type + " with a valid checksum (this"
              + " version of twophase knows types " + LogFormat.TYPE_OWNER + " to "
              + (version >= LogFormat.SEALED_SINCE_VERSION
                  ? LogFormat.TYPE_SEAL : LogFormat.TYPE_COMPLETED)
              + " in a segment of format " + version + "): the record was written by a faulty writer, since a"
              + " newer version of twophase would have written a newer segment format. "
              + steps(off), off);
      }
    }

    /** Reads the end marker, the last byte of every record. */
    private void end(String type, ByteBuffer body, int len, long off) {
      if (body.remaining() != 1 || body.get() != LogFormat.END) {
        throw malformed(type, len, off);
      }
    }

    private String readId(ByteBuffer body, int after, String type, int len, long off) {
      if (body.remaining() < 2) {
        throw malformed(type, len, off);
      }
      int idLength = body.getShort() & 0xFFFF;
      if (idLength < 1 || idLength > LogFormat.MAX_ID_BYTES || body.remaining() < idLength + after) {
        throw malformed(type, len, off);
      }
      byte[] id = new byte[idLength];
      body.get(id);
      return new String(id, StandardCharsets.UTF_8);
    }

    private StateLogCorruptedException malformed(String type, int len, long off) {
      return corrupted("malformed " + type + " record (body of " + len + " bytes) with a valid "
          + "checksum: the record was written by a faulty writer. " + steps(off), off);
    }

    /**
     * Damage found at {@code off}: why it is not a torn append, and what the operator does.
     *
     * @param lengthTrusted whether the record's length passed its check
     */
    private StateLogCorruptedException damaged(String problem, long off, boolean lengthTrusted)
        throws IOException {
      String why;
      if (!last) {
        why = " in a segment that is not the last one, where no append can have been in progress";
      } else if (lengthTrusted) {
        why = " in the last segment, in a record written to its last byte (a torn append never"
            + " is), so it changed after it was written and may be a decision that was"
            + " acknowledged" + lostSectorHint(off);
      } else {
        why = " in the last segment, followed by written bytes (a torn append never is), so it"
            + " changed after it was written and may be a decision that was acknowledged";
      }
      return corrupted(problem + why + ": the log holds bytes that were damaged after they were"
          + " written. " + steps(off), off);
    }

    /**
     * If the record at {@code off} holds a whole 512-byte sector of zeros: a hint that a device
     * lost that sector of a write that had not been synced (a power loss), which the reader cannot
     * tell from a sector lost after it was synced. Empty otherwise.
     */
    private String lostSectorHint(long off) throws IOException {
      ByteBuffer frame = bytes(off, LogFormat.RECORD_HEADER_SIZE);
      long end = Math.min(size, off + LogFormat.RECORD_HEADER_SIZE + frame.getInt(0));
      for (long sector = (off + 511) / 512 * 512; sector + 512 <= end; sector += 512) {
        ByteBuffer b = bytes(sector, 512);
        boolean zeros = true;
        for (int i = 0; i < 512 && zeros; i++) {
          zeros = b.get(i) == 0;
        }
        if (zeros) {
          return " (it holds zeros in the whole sector at offset " + sector + ": if the machine"
              + " lost power, the device may have lost that sector of an append that had not"
              + " returned, and cutting the segment here then loses nothing that was"
              + " acknowledged)";
        }
      }
      return "";
    }

    /** What the operator does about damage in a record at {@code off}; nothing was changed. */
    private String steps(long off) {
      return steps(off, true);
    }

    /**
     * What the operator does about damage at {@code off}; nothing was changed. {@code canCut}:
     * cutting the last segment there is a way out (not for a damaged header).
     */
    private String steps(long off, boolean canCut) {
      String common = "Nothing was changed. To recover: stop, and copy the log directory aside;"
          + " restore a copy of it at least as recent as the damage if there is one (a file-system"
          + " snapshot taken after the last append, say)";
      if (!last || !canCut) {
        return common + "; otherwise see \"Torn tail or corruption\" in docs/state-log.md";
      }
      long after = Math.max(0, size - off);
      return common + "; otherwise cut the segment here (truncate -s " + off + " " + file.file()
          + "), which drops this record and the " + after + " byte(s) from it to the end of the"
          + " file, and open the log: its coordinators restart from their records before this"
          + " one, and a checkpoint decided by a dropped record may already be committed in some"
          + " participants, so check them before resuming (see \"Torn tail or corruption\" in"
          + " docs/state-log.md)";
    }

    private StateLogCorruptedException corrupted(String message, long off) {
      return new StateLogCorruptedException(message, file.file(), off);
    }

    /**
     * Bytes {@code [pos, pos + n)} of the file (which must lie within the size read at the
     * start), as a big-endian buffer positioned at them.
     */
    private ByteBuffer bytes(long pos, int n) throws IOException {
      if (pos < bufStart || pos + n > bufStart + buf.limit()) {
        if (n > buf.capacity()) {
          buf = ByteBuffer.allocate(n);
        }
        buf.clear();
        bufStart = pos;
        buf.limit((int) Math.min(buf.capacity(), size - pos));
        readFully(buf, pos);
        buf.flip();
      }
      int at = (int) (pos - bufStart);
      return buf.duplicate().limit(at + n).position(at).slice();
    }

    /** Offset after the last non-zero byte of the file (0 if all zero). */
    private long zeroTailStart() throws IOException {
      if (zeroTailStart >= 0) {
        return zeroTailStart;
      }
      ByteBuffer chunk = ByteBuffer.allocate(8192);
      long end = size;
      while (end > 0) {
        long start = Math.max(0, end - chunk.capacity());
        chunk.clear().limit((int) (end - start));
        readFully(chunk, start);
        for (int i = (int) (end - start) - 1; i >= 0; i--) {
          if (chunk.get(i) != 0) {
            zeroTailStart = start + i + 1;
            return zeroTailStart;
          }
        }
        end = start;
      }
      zeroTailStart = 0;
      return 0;
    }
  }
}
