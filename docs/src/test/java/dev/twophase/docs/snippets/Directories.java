package dev.twophase.docs.snippets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** For blocks that use a directory relative to the working directory, as a page shows them. */
final class Directories {

  private Directories() {}

  /** Deletes {@code directory} and everything in it, if it exists. */
  static void deleteTree(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The regular files under {@code directory}, relative to it, sorted. */
  static List<String> files(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).map(p -> directory.relativize(p).toString()).sorted().toList();
    }
  }
}
