package dev.twophase.file.internal;

import dev.twophase.FaultInjector;
import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Searches the whole base directory by transaction name, where no handle says which parts exist:
 * the start-up clean-up of in-progress parts begun after the last decision, and recovery's search
 * for the parts of a transaction whose handle was logged before its first write.
 *
 * <p>The walk never follows a symbolic link (a link is seen as a link, and neither entered nor
 * deleted through), and before a file is deleted the directories above it are checked again
 * ({@link BucketDirectories#checkNoLinks}), in case one was swapped for a link while the walk ran.
 */
@Internal
public final class LeftoverSweeper {

  private static final Logger LOG = LoggerFactory.getLogger("dev.twophase.file.FileParticipant");

  private final FileNames names;
  private final BucketDirectories buckets;
  private final OpenTransaction.DirectorySync directorySync;
  private final FaultInjector faults;

  public LeftoverSweeper(FileNames names, BucketDirectories buckets, OpenTransaction.DirectorySync directorySync,
      FaultInjector faults) {
    this.names = names;
    this.buckets = buckets;
    this.directorySync = directorySync;
    this.faults = faults;
  }

  /**
   * Deletes the in-progress parts (of this naming scheme) whose transaction name matches, syncs
   * their directories, and calls the injector at {@code point} after each delete; returns how many
   * it deleted.
   */
  public int deleteInProgress(Predicate<String> transaction, String point) throws IOException {
    Path base = buckets.base();
    if (!Files.isDirectory(base)) {
      return 0;
    }
    Set<Path> dirs = new LinkedHashSet<>();
    int[] deleted = {0};
    Files.walkFileTree(base, new SharedTreeVisitor() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        warnIfLink(file, attrs);
        String name = attrs.isRegularFile() ? names.transactionOfInProgress(file) : null;
        if (name != null && transaction.test(name)) {
          buckets.checkNoLinks(file.getParent());
          if (Files.deleteIfExists(file)) {
            LOG.debug("deleted in-progress part {}", file);
            dirs.add(file.getParent());
            deleted[0]++;
            faults.reached(point);
          }
        }
        return FileVisitResult.CONTINUE;
      }
    });
    for (Path dir : dirs) {
      directorySync.sync(dir, null);
    }
    return deleted[0];
  }

  /**
   * Walks a tree that other writers change meanwhile (other tasks and processes sharing the base
   * directory commit parts by renaming them, and write claim files through temporary ones): an
   * entry that vanished between its listing and its visit has nothing left to search or delete,
   * and is passed over; any other failure ends the walk.
   */
  private static class SharedTreeVisitor extends SimpleFileVisitor<Path> {
    @Override
    public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
      if (e instanceof NoSuchFileException) {
        return FileVisitResult.CONTINUE;
      }
      throw e;
    }

    @Override
    public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
      if (e == null || e instanceof NoSuchFileException) {
        return FileVisitResult.CONTINUE;
      }
      throw e;
    }
  }

  private static void warnIfLink(Path file, BasicFileAttributes attrs) {
    if (attrs.isSymbolicLink()) {
      LOG.warn("{} is a symbolic link: the file participant follows no links below its base "
          + "directory, so part files behind it are neither searched nor deleted", file);
    }
  }

  /** Whether any directory under the base holds a committed part of transaction {@code name}. */
  public boolean hasCommittedPart(String name) throws IOException {
    Path base = buckets.base();
    if (!Files.isDirectory(base)) {
      return false;
    }
    boolean[] found = {false};
    Files.walkFileTree(base, new SharedTreeVisitor() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        warnIfLink(file, attrs);
        if (attrs.isRegularFile() && name.equals(names.transactionOfCommitted(file))) {
          found[0] = true;
          return FileVisitResult.TERMINATE;
        }
        return FileVisitResult.CONTINUE;
      }
    });
    return found[0];
  }
}
