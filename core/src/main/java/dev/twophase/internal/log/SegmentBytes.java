package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The bytes of one segment as a {@link SegmentScan} reads them: through a buffer, as the file
 * holds them now (bypassing the buffer), and where its zero tail starts. The size is the one read
 * when the scan started; a file that became shorter since throws {@link
 * LogReader.SegmentChangedException}.
 */
final class SegmentBytes {

  private static final int READ_BUFFER = 64 * 1024;

  private final Path file;
  private final FileChannel ch;
  private final long size;
  private ByteBuffer buf = ByteBuffer.allocate(READ_BUFFER).limit(0);
  private long bufStart;
  private long zeroTailStart = -1;

  SegmentBytes(Path file, FileChannel ch) throws IOException {
    this.file = file;
    this.ch = ch;
    this.size = ch.size();
  }

  /** The size of the file when the scan started. */
  long size() {
    return size;
  }

  /**
   * Bytes {@code [pos, pos + n)} of the file (which must lie within the size read at the
   * start), as a big-endian buffer positioned at them.
   */
  ByteBuffer bytes(long pos, int n) throws IOException {
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
  long zeroTailStart() throws IOException {
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

  /** Bytes {@code [pos, pos + n)} as the file holds them now, bypassing the scan's buffer. */
  ByteBuffer readFresh(long pos, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    readFully(b, pos);
    return b.flip();
  }

  /** Fills {@code b}'s remaining space with the segment's bytes from offset {@code pos} on. */
  private void readFully(ByteBuffer b, long pos) throws IOException {
    for (long at = pos; b.hasRemaining(); ) {
      int r = ch.read(b, at);
      if (r < 0) {
        throw new LogReader.SegmentChangedException("segment " + file + " shrank to " + at
            + " bytes while it was read (expected " + size + ")");
      }
      at += r;
    }
  }
}
