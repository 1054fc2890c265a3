package dev.twophase.file.internal;

import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Durability of names: a created, renamed or deleted file survives power loss only once its directory is synced. */
@Internal
public final class Fsync {

  private static final boolean WINDOWS = System.getProperty("os.name", "").startsWith("Windows");

  private Fsync() {}

  public static void directory(Path dir) throws IOException {
    if (WINDOWS) {
      return; // directories cannot be opened for sync there; NTFS journals renames
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
