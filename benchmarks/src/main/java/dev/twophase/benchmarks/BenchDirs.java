package dev.twophase.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where benchmarks that write to disk put their files: a fresh directory per trial under
 * {@code -Dbench.dir=...} if given, else under {@code benchmarks/target/} (the directory holding
 * {@code benchmarks.jar}), i.e. on the disk of the repository. Never under {@code java.io.tmpdir},
 * which may be a tmpfs whose "fsync" costs nothing.
 */
final class BenchDirs {

  /** System property naming the base directory of the benchmarks' files. */
  static final String PROPERTY = "bench.dir";

  private BenchDirs() {}

  /** The base directory: {@code -Dbench.dir}, else the folder of benchmarks.jar, else ./target. */
  static Path base() {
    String configured = System.getProperty(PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    try {
      Path code = Path.of(BenchDirs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(code)) { // benchmarks/target/benchmarks.jar
        return code.toAbsolutePath().getParent();
      }
      if (code.getParent() != null) { // benchmarks/target/classes (IDE)
        return code.toAbsolutePath().getParent();
      }
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      // fall through
    }
    return Path.of("target").toAbsolutePath();
  }

  /** A new, empty directory under {@link #base()}. */
  static Path fresh(String prefix) {
    try {
      Path base = base();
      Files.createDirectories(base);
      return Files.createTempDirectory(base, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a benchmark directory under " + base()
          + " (set -D" + PROPERTY + "=... to a writable directory on the disk to measure)", e);
    }
  }

  /** Syncs directory {@code dir}: the entries created, renamed or deleted in it are durable. */
  static void fsync(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Deletes {@code dir} and everything in it; best effort. */
  static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort
        }
      });
    } catch (IOException e) {
      // best effort
    }
  }
}
