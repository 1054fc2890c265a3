package dev.twophase.internal.log;

import dev.twophase.FencedException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive OS lock on a log directory's {@code LOCK} file, held by one owner.
 *
 * <p>OS file locks belong to the process, and on POSIX systems closing <em>any</em> channel on the
 * file drops all of the process's locks on it. So a second open of the same directory in this JVM
 * must never open the file: a JVM-wide set of held directories (by file key, so that two paths to
 * one directory count as one) refuses it first. Code in the owning process must not open
 * {@code LOCK} either.
 */
final class DirectoryLock implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DirectoryLock.class);

  /** Keys of the directories locked by this JVM. Guarded by itself. */
  private static final Set<Object> HELD = new HashSet<>();

  private final Object key;
  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(Object key, FileChannel channel, FileLock lock) {
    this.key = key;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (which must exist).
   *
   * @throws FencedException if another process, or another owner in this JVM, holds it
   */
  static DirectoryLock acquire(Path dir) throws IOException {
    Object key = Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
    if (key == null) {
      key = dir.toRealPath();
    }
    synchronized (HELD) {
      if (!HELD.add(key)) {
        throw inUse(dir, null);
      }
    }
    FileChannel channel = null;
    boolean keepChannel = false;
    try {
      channel =
          FileChannel.open(
              dir.resolve(LogFormat.LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        // Something else in this JVM locked the file through another channel. Closing ours would
        // drop that lock, so leave it open.
        keepChannel = true;
        throw inUse(dir, e);
      }
      if (lock == null) {
        throw inUse(dir, null);
      }
      DirectoryLock result = new DirectoryLock(key, channel, lock);
      channel = null;
      return result;
    } finally {
      if (channel != null) {
        if (!keepChannel) {
          closeQuietly(channel);
        }
        release(key);
      }
    }
  }

  private static FencedException inUse(Path dir, Throwable cause) {
    return new FencedException(
        "state log directory "
            + dir
            + " is in use by another process (or by another open FileStateLog in this JVM):"
            + " stop it, or use another directory",
        cause);
  }

  /** Releases the lock. Not idempotent: call once. */
  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      LOG.warn("Could not release the lock on {}", channel, e);
    }
    closeQuietly(channel);
    // Only now may another owner in this JVM open the file.
    release(key);
  }

  private static void release(Object key) {
    synchronized (HELD) {
      HELD.remove(key);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      ch.close();
    } catch (IOException e) {
      LOG.debug("close failed", e);
    }
  }
}
