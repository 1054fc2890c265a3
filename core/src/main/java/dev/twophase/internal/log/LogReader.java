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
 * the {@link Result}, corruption anywhere else throws {@link StateLogCorruptedException}. The rules
 * are those of {@link LogFormat}.
 */
final class LogReader {

  private static final int READ_BUFFER = 64 * 1024;

  private LogReader() {}

  /** A segment as read. */
  record ScannedSegment(long sequence, Path file, long size, long validEnd, long records) {}

  /** What a scan found. */
  record Result(List<ScannedSegment> segments, TornTail tornTail) {}

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
    List<ScannedSegment> segments = new ArrayList<>(files.size());
    TornTail torn = null;
    for (int i = 0; i < files.size(); i++) {
      SegmentFile f = files.get(i);
      try (FileChannel ch = FileChannel.open(f.file(), StandardOpenOption.READ)) {
        SegmentScan scan = new SegmentScan(f, ch, i == files.size() - 1, visitor);
        scan.run();
        segments.add(new ScannedSegment(f.sequence(), f.file(), scan.size, scan.validEnd, scan.records));
        if (scan.torn != null) {
          torn = scan.torn;
        }
      }
    }
    return new Result(Collections.unmodifiableList(segments), torn);
  }

  /** The scan of one segment. */
  private static final class SegmentScan {
    private final SegmentFile file;
    private final FileChannel ch;
    private final boolean last;
    private final RecordVisitor visitor;
    private final long size;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buf = ByteBuffer.allocate(READ_BUFFER).limit(0);
    private long bufStart;
    private long zeroTailStart = -1;

    long validEnd;
    long records;
    TornTail torn;

    SegmentScan(SegmentFile file, FileChannel ch, boolean last, RecordVisitor visitor)
        throws IOException {
      this.file = file;
      this.ch = ch;
      this.last = last;
      this.visitor = visitor;
      this.size = ch.size();
    }

    void run() throws IOException {
      if (!readHeader()) {
        return;
      }
      long off = LogFormat.SEGMENT_HEADER_SIZE;
      validEnd = off;
      while (off < size) {
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
          } else if (len < 1 || len > LogFormat.MAX_BODY_LENGTH) {
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
          throw corrupted(
              problem + (last ? "" : " in a segment that is not the last one")
                  + ": the log holds bytes that were damaged after they were written",
              off);
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

    /** Returns false if the segment is a torn (empty) last segment. */
    private boolean readHeader() throws IOException {
      ByteBuffer expected = ByteBuffer.allocate(LogFormat.SEGMENT_HEADER_SIZE);
      LogFormat.putSegmentHeader(expected, new CRC32C(), file.sequence());
      expected.flip();
      int have = (int) Math.min(size, LogFormat.SEGMENT_HEADER_SIZE);
      ByteBuffer header = bytes(0, have);
      if (have == LogFormat.SEGMENT_HEADER_SIZE && header.equals(expected)) {
        return true;
      }
      if (last) {
        long z = zeroTailStart();
        if (z < LogFormat.SEGMENT_HEADER_SIZE
            && header.duplicate().limit((int) z).equals(expected.duplicate().limit((int) z))) {
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
      byte[] magic = new byte[Math.min(have, LogFormat.MAGIC.length)];
      header.duplicate().get(magic);
      if (!Arrays.equals(magic, Arrays.copyOf(LogFormat.MAGIC, magic.length))) {
        throw corrupted("not a twophase state log: the segment does not start with the magic bytes "
            + new String(LogFormat.MAGIC, StandardCharsets.US_ASCII), 0);
      }
      if (have < LogFormat.SEGMENT_HEADER_SIZE) {
        throw corrupted("incomplete segment header (" + have + " of "
            + LogFormat.SEGMENT_HEADER_SIZE + " bytes)", 0);
      }
      int version = header.getInt(8);
      if (version != LogFormat.VERSION) {
        throw corrupted("unsupported state log format version " + version + ": this release of "
            + "twophase reads version " + LogFormat.VERSION + " only", 0);
      }
      crc.reset();
      crc.update(header.duplicate().limit(20));
      if ((int) crc.getValue() != header.getInt(20)) {
        throw corrupted("segment header checksum mismatch", 0);
      }
      throw corrupted("segment header names sequence " + header.getLong(12)
          + " but the file name says " + file.sequence(), 0);
    }

    /** Whether the failed record at {@code off} of the last segment is a torn write. */
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
      return end > size || z <= end;
    }

    private void parse(ByteBuffer body, long off) {
      int len = body.remaining();
      byte type = body.get();
      switch (type) {
        case LogFormat.TYPE_OWNER:
          if (len != 9) {
            throw malformed("OWNER", len, off);
          }
          visitor.owner(body.getLong());
          break;
        case LogFormat.TYPE_STATE: {
          String id = readId(body, 20, "STATE", len, off);
          long checkpointId = body.getLong();
          long epoch = body.getLong();
          int payloadLength = body.getInt();
          if (payloadLength != body.remaining() || checkpointId < 0) {
            throw malformed("STATE", len, off);
          }
          byte[] payload = new byte[payloadLength];
          body.get(payload);
          visitor.state(id, checkpointId, epoch, payload);
          break;
        }
        case LogFormat.TYPE_COMPLETED: {
          String id = readId(body, 16, "COMPLETED", len, off);
          long checkpointId = body.getLong();
          long epoch = body.getLong();
          if (body.hasRemaining() || checkpointId < 0) {
            throw malformed("COMPLETED", len, off);
          }
          visitor.completed(id, checkpointId, epoch);
          break;
        }
        default:
          throw corrupted("unknown state log record type " + type + " (this release knows types "
              + LogFormat.TYPE_OWNER + " to " + LogFormat.TYPE_COMPLETED
              + "; was the log written by a newer release?)", off);
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
          + "checksum", off);
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
