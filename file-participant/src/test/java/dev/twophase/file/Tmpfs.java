package dev.twophase.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted on a test directory: a real file system that runs full, so that writes
 * fail with {@code ENOSPC} ("No space left on device") as on a full disk. Needs the right to
 * mount (root, or CAP_SYS_ADMIN); where the mount is refused the calling test is aborted with the
 * reason (reported as skipped, never as passed).
 */
final class Tmpfs implements AutoCloseable {

  private final Path dir;

  private Tmpfs(Path dir) {
    this.dir = dir;
  }

  /** Mounts a tmpfs with {@code options} (e.g. {@code size=256k}) on {@code dir}, created if missing. */
  static Tmpfs mount(Path dir, String options) throws Exception {
    Files.createDirectories(dir);
    try {
      Dirs.run("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString());
    } catch (IOException e) {
      Assumptions.abort("cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): " + e.getMessage());
    }
    return new Tmpfs(dir);
  }

  Path dir() {
    return dir;
  }

  @Override
  public void close() throws Exception {
    try {
      Dirs.run("umount", dir.toString());
    } catch (IOException busy) {
      Dirs.run("umount", "-l", dir.toString());
    }
  }
}
