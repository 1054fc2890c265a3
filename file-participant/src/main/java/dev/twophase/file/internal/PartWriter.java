package dev.twophase.file.internal;

import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Set;

/**
 * One in-progress part file and its write buffer. Records are encoded straight into the buffer
 * (this is the {@link OutputStream} the encoder gets): the caller notes {@link #position()} before
 * encoding and {@link #rewind rewinds} to it if the encoder fails, so a record that cannot be
 * encoded leaves no byte behind, without a copy through a scratch buffer. Nothing reaches the file
 * while a record is being encoded: a record that does not fit grows the buffer, and the buffer is
 * written out only between records ({@link #drainIfFull}).
 *
 * <p>The file is created after the part's first record was encoded ({@link #create}), so a part
 * whose first record fails never exists on disk. Then buffered appends, and at pre-commit
 * {@link #finish}: write out, fsync, close.
 *
 * <p>Not thread-safe: the transaction's writing thread only. {@link OutputStream#close()} is
 * the inherited no-op (an encoder that closes its stream closes nothing); {@link #discard()}
 * closes the file.
 */
@Internal
public final class PartWriter extends OutputStream {

  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

  private static final byte[] NO_BYTES = new byte[0];

  private final String bucket;
  private final Path dir;
  private final BufferPool pool;
  private byte[] buffer;
  /** {@link #buffer} as a ByteBuffer, for the channel; rewrapped when the buffer grows. */
  private ByteBuffer view;
  private int position;
  private Path file;
  private FileChannel channel;
  private int index = -1;
  private long bytes;
  private long records;

  /** A part of {@code bucket} (in {@code dir}) with a buffer from {@code pool}; no file yet. */
  public PartWriter(String bucket, Path dir, BufferPool pool) {
    this.bucket = bucket;
    this.dir = dir;
    this.pool = pool;
    this.buffer = pool.take();
    this.view = ByteBuffer.wrap(buffer);
  }

  public String bucket() {
    return bucket;
  }

  public Path dir() {
    return dir;
  }

  /** The file, or {@code dir} while it is not created. */
  public Path file() {
    return file == null ? dir : file;
  }

  /** Whether the file was created. */
  public boolean created() {
    return channel != null;
  }

  public int index() {
    return index;
  }

  /** Bytes of the completed records. */
  public long bytes() {
    return bytes;
  }

  /** Completed records. */
  public long records() {
    return records;
  }

  /** Where the next record begins in the buffer. */
  public int position() {
    return position;
  }

  /** Drops what was encoded since {@code mark} (a {@link #position()}). */
  public void rewind(int mark) {
    position = mark;
  }

  /** The record encoded since {@code mark} is complete: count it. */
  public void recordWritten(int length) {
    bytes += length;
    records++;
  }

  /** Moves the bytes encoded since {@code mark} to the end of {@code other}'s buffer. */
  public void moveTo(PartWriter other, int mark) {
    other.write(buffer, mark, position - mark);
    position = mark;
  }

  /** Creates the file ({@code CREATE_NEW}, owner-only if asked on POSIX) as part {@code index}. */
  public void create(Path file, int index, boolean ownerOnly) throws IOException {
    FileAttribute<?>[] attributes = ownerOnly && POSIX
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
        : new FileAttribute<?>[0];
    this.channel = FileChannel.open(file, CREATE, attributes);
    this.file = file;
    this.index = index;
  }

  // ------------------------------------------------------------------ the encoder's stream

  @Override
  public void write(int b) {
    if (position == buffer.length) {
      grow(1);
    }
    buffer[position++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    if (len > buffer.length - position) {
      grow(len);
    }
    System.arraycopy(b, off, buffer, position, len);
    position += len;
  }

  private void grow(int more) {
    long needed = (long) position + more;
    if (more < 0 || needed > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a record of more than " + (Integer.MAX_VALUE - 8 - position)
          + " bytes cannot be buffered");
    }
    buffer = Arrays.copyOf(buffer, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(2L * buffer.length, needed)));
    view = ByteBuffer.wrap(buffer);
  }

  // ------------------------------------------------------------------ I/O, between records

  /**
   * Writes the buffer out if a record of {@code nextLength} bytes would not fit in what is left:
   * the buffer goes to the file in chunks of about its size, never in the middle of a record.
   */
  public void drainIfFull(int nextLength) throws IOException {
    if (buffer.length - position < nextLength) {
      drain();
    }
  }

  private void drain() throws IOException {
    view.clear().limit(position);
    while (view.hasRemaining()) {
      channel.write(view);
    }
    position = 0;
    if (buffer.length > 2 * pool.size()) { // grown for a large record: give the memory back
      buffer = pool.take();
      view = ByteBuffer.wrap(buffer);
    }
  }

  /**
   * Writes the buffer, syncs the file and closes it: its content is durable after this. The buffer
   * is released either way: nothing is written to a finished part.
   */
  public void finish() throws IOException {
    try {
      drain();
      channel.force(true);
    } finally {
      try {
        channel.close();
      } finally {
        release();
      }
    }
  }

  /**
   * Closes the file without caring for its content (the transaction is being aborted, or this part
   * was never created), and gives the buffer back.
   */
  public void discard() {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException ignored) {
      // the file is deleted next; nothing of it matters
    } finally {
      release();
    }
  }

  /** Gives the buffer back to the pool, once; nothing is written to this part afterwards. */
  private void release() {
    if (buffer != NO_BYTES) {
      byte[] b = buffer;
      buffer = NO_BYTES;
      view = ByteBuffer.wrap(NO_BYTES);
      position = 0;
      pool.give(b);
    }
  }

  public boolean isOpen() {
    return channel != null && channel.isOpen();
  }
}
