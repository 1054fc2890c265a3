package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Durable directory operations. */
final class Directories {

  /** Windows cannot open a directory as a channel; its file system orders metadata itself. */
  private static final boolean CAN_SYNC_DIRECTORIES =
      !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

  private Directories() {}

  /** Makes the entries of {@code dir} (files created, renamed or removed in it) durable. */
  static void fsync(Path dir) throws IOException {
    if (!CAN_SYNC_DIRECTORIES) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /**
   * Creates {@code dir} and its missing parents, syncing the parent of each one created, and
   * returns the directories it created, outermost first (empty if {@code dir} existed).
   *
   * @throws FileSystemException if {@code dir} or one of its parents exists but is not a
   *     directory; its message says so, and what to do
   */
  static List<Path> createDurably(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath();
    if (Files.isDirectory(abs)) {
      return List.of();
    }
    List<Path> missing = new ArrayList<>();
    for (Path p = abs; p != null; p = p.getParent()) {
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) || Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          throw new FileSystemException(null, null, p.equals(abs)
              ? p + " exists and is not a directory: point the state log at a directory"
                  + " (it is created if it is missing), or move the file out of the way"
              : p + " is not a directory, so the state log directory " + abs + " cannot be"
                  + " created under it: point the state log at a path whose parents are"
                  + " directories");
        }
        break;
      }
      missing.add(p);
    }
    Collections.reverse(missing);
    Files.createDirectories(abs);
    for (Path created : missing) {
      fsync(created.getParent());
    }
    return List.copyOf(missing);
  }
}
