package dev.twophase.crash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Copies of a state log directory, as a restored backup started beside the original would be. */
public final class LogCopies {

  private LogCopies() {}

  /** Copies every file and directory under {@code from} to {@code to}, which must not exist. */
  public static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
