package dev.twophase.internal.log;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.FencedException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The exclusive OS lock on a log directory's {@code LOCK} file, held by one owner.
 *
 * <p>OS file locks belong to the process, and on POSIX systems closing <em>any</em> channel on the
 * file drops all of the process's locks on it. So a second open of the same directory in this JVM
 * must never open the file: a JVM-wide set of held directories (by file key, so that two paths to
 * one directory count as one) refuses it first. Code in the owning process must not open
 * {@code LOCK} either.
 *
 * <p>A failed open of a directory it created removes {@code LOCK} again ({@link
 * #deleteLockFileAndClose}). An opener that opened the file just before it was removed would then
 * lock a file that no longer has a name, while a third one creates and locks a new {@code LOCK}: two
 * owners. So {@link #acquire} accepts a lock only if the name {@code LOCK} referred to the same file
 * before it opened it and after it locked it, and the directory is still the same one; otherwise
 * it lets go and tries again.
 */
final class DirectoryLock implements AutoCloseable {

  private static final Logger LOG = SegmentedLog.LOG;
  private static final int ATTEMPTS = 5;

  /** Keys of the directories locked by this JVM. Guarded by itself. */
  @GuardedBy("HELD")
  private static final Set<Object> HELD = new HashSet<>();

  private final Path dir;
  private final Object key;
  private final FileChannel channel;
  private final FileLock lock;
  /** Set once by {@link #close}. Guarded by this lock object. */
  @GuardedBy("this")
  private boolean closed;

  private DirectoryLock(Path dir, Object key, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.key = key;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (which must exist).
   *
   * @throws FencedException if another process, or another owner in this JVM, holds it
   * @throws IOException if the lock file cannot be created or opened; the message says what to do
   */
  static DirectoryLock acquire(Path dir) throws IOException {
    Object key = fileKey(dir);
    synchronized (HELD) {
      if (!HELD.add(key)) {
        throw inUse(dir, null);
      }
    }
    boolean acquired = false;
    try {
      for (int attempt = 1; ; attempt++) {
        DirectoryLock result = tryAcquire(dir, key);
        if (result != null) {
          acquired = true;
          return result;
        }
        if (attempt == ATTEMPTS) {
          throw new FencedException("state log directory " + dir + ": its lock file kept being"
              + " replaced while this process tried to lock it; another process is opening or"
              + " giving up the directory right now: try again");
        }
      }
    } finally {
      if (!acquired) {
        release(key); // whatever failed, the directory is not this JVM's
      }
    }
  }

  /** One attempt; null if {@code LOCK} or the directory changed meanwhile (try again). */
  private static DirectoryLock tryAcquire(Path dir, Object key) throws IOException {
    Path file = dir.resolve(LogFormat.LOCK_FILE);
    Object before = fileKeyOrNull(file);
    FileChannel channel;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException("cannot create or open the lock file " + file + " (" + e + "): the"
          + " state log directory must be writable by this process", e);
    }
    boolean keep = false;
    boolean keepChannelOpen = false;
    try {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        // Something else in this JVM locked the file through another channel. Closing ours would
        // drop that lock, so leave it open.
        keepChannelOpen = true;
        throw inUse(dir, e);
      }
      if (lock == null) {
        throw inUse(dir, null);
      }
      if (before == null
          || !before.equals(fileKeyOrNull(file))
          || !key.equals(fileKey(dir))) {
        return null; // the finally block closes the channel, which releases the lock
      }
      keep = true;
      return new DirectoryLock(dir, key, channel, lock);
    } finally {
      if (!keep && !keepChannelOpen) {
        closeQuietly(channel);
      }
    }
  }

  private static Object fileKey(Path p) throws IOException {
    Object key = Files.readAttributes(p, BasicFileAttributes.class).fileKey();
    return key != null ? key : p.toRealPath();
  }

  private static Object fileKeyOrNull(Path p) throws IOException {
    try {
      BasicFileAttributes a =
          Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.fileKey() != null ? a.fileKey() : p.toRealPath();
    } catch (NoSuchFileException e) {
      return null;
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

  /**
   * Removes {@code LOCK} while still holding the lock, then {@code removeAfter} (directories a
   * failed open created, innermost last in the list: removed innermost first, as far as they are
   * empty), then releases the lock. For an open that fails in a directory it created, so that it
   * leaves nothing behind.
   */
  void deleteLockFileAndClose(java.util.List<Path> removeAfter) {
    try {
      Files.deleteIfExists(dir.resolve(LogFormat.LOCK_FILE));
      for (int i = removeAfter.size() - 1; i >= 0; i--) {
        Files.delete(removeAfter.get(i));
      }
      if (!removeAfter.isEmpty() && removeAfter.get(0).getParent() != null) {
        Directories.fsync(removeAfter.get(0).getParent());
      }
    } catch (IOException e) {
      LOG.debug("Could not remove what a failed open created in {}", dir, e);
    } finally {
      close();
    }
  }

  /** Releases the lock. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      lock.release();
    } catch (IOException e) {
      LOG.warn("Could not release the lock on {}", dir.resolve(LogFormat.LOCK_FILE), e);
    } finally {
      closeQuietly(channel);
      // Only now may another owner in this JVM open the file.
      release(key);
    }
  }

  private static void release(Object key) {
    synchronized (HELD) {
      HELD.remove(Objects.requireNonNull(key));
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
