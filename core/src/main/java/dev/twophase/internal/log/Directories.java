package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
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

  /** Creates {@code dir} and its missing parents, syncing the parent of each one created. */
  static void createDurably(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath();
    if (Files.isDirectory(abs)) {
      return;
    }
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = abs; p != null && !Files.exists(p); p = p.getParent()) {
      missing.push(p);
    }
    Files.createDirectories(abs);
    for (Path created : missing) {
      fsync(created.getParent());
    }
  }
}
