package dev.twophase.file.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** One open in-progress part file: buffered appends, then flush, fsync and close at pre-commit. */
public final class PartWriter {

  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  private static final OpenOption[] CREATE = {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};

  private final Path file;
  private final FileChannel channel;
  private final ByteBuffer buffer;
  private long bytes;
  private long records;

  public PartWriter(Path file, int bufferBytes, boolean ownerOnly) throws IOException {
    this.file = file;
    FileAttribute<?>[] attributes = ownerOnly && POSIX
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
        : new FileAttribute<?>[0];
    this.channel = FileChannel.open(file, Set.of(CREATE), attributes);
    this.buffer = ByteBuffer.allocate(bufferBytes);
  }

  public Path file() {
    return file;
  }

  public long bytes() {
    return bytes;
  }

  public long records() {
    return records;
  }

  /** Appends one encoded record. */
  public void append(byte[] data, int length) throws IOException {
    if (length > buffer.remaining()) {
      drain();
      if (length > buffer.capacity()) {
        writeFully(ByteBuffer.wrap(data, 0, length));
        bytes += length;
        records++;
        return;
      }
    }
    buffer.put(data, 0, length);
    bytes += length;
    records++;
  }

  /** Writes the buffer, syncs the file and closes it: its content is durable after this. */
  public void finish() throws IOException {
    try {
      drain();
      channel.force(true);
    } finally {
      channel.close();
    }
  }

  /** Closes without caring for the content (the transaction is being aborted). */
  public void closeQuietly() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // the file is deleted next; nothing of it matters
    }
  }

  public boolean isOpen() {
    return channel.isOpen();
  }

  private void drain() throws IOException {
    buffer.flip();
    writeFully(buffer);
    buffer.clear();
  }

  private void writeFully(ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      channel.write(b);
    }
  }
}
