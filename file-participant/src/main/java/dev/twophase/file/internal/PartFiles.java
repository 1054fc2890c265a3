package dev.twophase.file.internal;

import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.annotation.Internal;
import dev.twophase.file.FilePoints;
import dev.twophase.file.FileTransaction;
import dev.twophase.file.FileTransaction.Part;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part files a handle names, on disk: renamed to their final names by a commit, deleted by an
 * abort. Every directory is checked for links ({@link BucketDirectories#checkNoLinks}) right before
 * a file in it is renamed or deleted. Thread-safe (no state of its own).
 */
@Internal
public final class PartFiles {

  private static final Logger LOG = LoggerFactory.getLogger("dev.twophase.file.FileParticipant");

  private final FileNames names;
  private final BucketDirectories buckets;
  private final OpenTransaction.DirectorySync directorySync;
  private final FaultInjector faults;

  public PartFiles(FileNames names, BucketDirectories buckets, OpenTransaction.DirectorySync directorySync,
      FaultInjector faults) {
    this.names = names;
    this.buckets = buckets;
    this.directorySync = directorySync;
    this.faults = faults;
  }

  /**
   * Renames what is still in progress and accepts what is already final; a part with neither name
   * makes the transaction {@code LOST} (checked before any part is renamed, so that none of it
   * becomes visible).
   */
  public CommitOutcome commit(FileTransaction transaction) throws IOException {
    List<Path> missing = new ArrayList<>();
    Set<Path> checked = new HashSet<>();
    for (Part part : transaction.parts()) {
      Path dir = checkedDir(part, checked, transaction, "commit");
      if (!Files.exists(dir.resolve(names.inProgressName(transaction.name(), part.index())), LinkOption.NOFOLLOW_LINKS)
          && !Files.exists(dir.resolve(names.finalName(transaction.name(), part.index())), LinkOption.NOFOLLOW_LINKS)) {
        missing.add(dir.resolve(names.inProgressName(transaction.name(), part.index())));
      }
    }
    if (!missing.isEmpty()) {
      LOG.error("transaction {}: part files {} have neither their in-progress nor their final name; "
          + "their records are missing", transaction.name(), missing);
      return CommitOutcome.LOST;
    }
    boolean renamed = false;
    Set<Path> dirs = new LinkedHashSet<>();
    for (Part part : transaction.parts()) {
      Path dir = checkedDir(part, checked, transaction, "commit");
      Path inProgress = dir.resolve(names.inProgressName(transaction.name(), part.index()));
      Path committed = dir.resolve(names.finalName(transaction.name(), part.index()));
      // The directory is synced even if the part was renamed by an earlier attempt (checked above
      // that one of the names exists): that attempt may have failed before its own sync.
      dirs.add(dir);
      try {
        Files.move(inProgress, committed, StandardCopyOption.ATOMIC_MOVE);
      } catch (NoSuchFileException alreadyFinal) {
        continue;
      }
      renamed = true;
      faults.reached(FilePoints.COMMIT_AFTER_RENAME);
    }
    for (Path dir : dirs) {
      directorySync.sync(dir, FilePoints.COMMIT_DIRECTORY_SYNC);
    }
    return renamed || transaction.parts().isEmpty() ? CommitOutcome.COMMITTED : CommitOutcome.ALREADY_COMMITTED;
  }

  /**
   * Deletes the in-progress files of {@code parts} of transaction {@code name}, syncs their
   * directories; returns whether any existed.
   */
  public boolean delete(String name, Collection<Part> parts) throws IOException {
    Set<Path> checked = new HashSet<>();
    Set<Path> dirs = new LinkedHashSet<>();
    for (Part part : parts) {
      Path dir = buckets.resolve(part.bucket());
      if (checked.add(dir)) {
        try {
          buckets.checkNoLinks(dir);
        } catch (BucketDirectories.LinkRefusedException e) {
          throw new IOException("cannot abort transaction " + name + ": " + e.getMessage(), e);
        }
      }
      if (Files.deleteIfExists(dir.resolve(names.inProgressName(name, part.index())))) {
        dirs.add(dir);
        faults.reached(FilePoints.ABORT_AFTER_DELETE);
      }
    }
    for (Path dir : dirs) {
      directorySync.sync(dir, null);
    }
    return !dirs.isEmpty();
  }

  private Path checkedDir(Part part, Set<Path> checked, FileTransaction transaction, String what)
      throws IOException {
    Path dir = buckets.resolve(part.bucket());
    if (checked.add(dir)) {
      try {
        buckets.checkNoLinks(dir);
      } catch (BucketDirectories.LinkRefusedException e) {
        throw new IOException("cannot " + what + " transaction " + transaction.name() + ": " + e.getMessage(), e);
      }
    }
    return dir;
  }
}
