package dev.twophase.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The demo's work directory: where it is, and emptied before a run. */
final class WorkDirectory {

  /** Marks a directory as the demo's, so that a later run may empty it. */
  static final String MARKER = ".twophase-demo";

  private WorkDirectory() {}

  /** Next to the jar (demo/target/twophase-demo-run) when run from it, else a new temporary one. */
  static Path defaultDir() throws IOException {
    try {
      Path location = Path.of(Demo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(location) && location.toString().endsWith(".jar")) {
        return location.toAbsolutePath().getParent().resolve("twophase-demo-run");
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall through
    }
    return Files.createTempDirectory("twophase-demo-");
  }

  /** Creates an empty work directory, emptying one of an earlier demo run; refuses anything else. */
  static Path prepare(Path dir) throws IOException {
    Path work = dir.toAbsolutePath().normalize();
    if (Files.exists(work)) {
      if (!Files.isDirectory(work)) {
        throw new IllegalArgumentException(work + " exists and is not a directory");
      }
      boolean empty;
      try (Stream<Path> entries = Files.list(work)) {
        empty = entries.findAny().isEmpty();
      }
      if (!empty) {
        if (!Files.exists(work.resolve(MARKER))) {
          throw new IllegalArgumentException(work + " is not empty and not an earlier demo run (no "
              + MARKER + " file); choose another --dir");
        }
        try (Stream<Path> all = Files.walk(work)) {
          for (Path p : all.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
            if (!p.equals(work)) {
              Files.delete(p);
            }
          }
        } catch (UncheckedIOException e) {
          throw e.getCause();
        }
      }
    }
    Files.createDirectories(work);
    Files.writeString(work.resolve(MARKER), "work directory of the twophase demo; the next run empties it\n");
    return work;
  }
}
