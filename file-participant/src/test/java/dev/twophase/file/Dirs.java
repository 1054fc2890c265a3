package dev.twophase.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** File-system helpers for the file participant's tests: what a reader of the directory sees. */
final class Dirs {

  private Dirs() {}

  /** Every regular file under {@code base}, relative to it, with '/' separators, sorted. */
  static List<String> allFiles(Path base) {
    if (!Files.isDirectory(base)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(base)) {
      return walk.filter(Files::isRegularFile)
          .map(p -> base.relativize(p).toString().replace('\\', '/'))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Committed part files (name starts with {@code part-}), relative, sorted. */
  static List<String> committed(Path base) {
    return allFiles(base).stream().filter(f -> name(f).startsWith("part-")).toList();
  }

  /** In-progress part files (hidden, ending in {@code .inprogress}), relative, sorted. */
  static List<String> inProgress(Path base) {
    return allFiles(base).stream()
        .filter(f -> name(f).startsWith(".part-") && name(f).endsWith(".inprogress"))
        .toList();
  }

  /** The lines of every committed part file under {@code base}, in file-name order. */
  static List<String> committedLines(Path base) {
    List<String> lines = new ArrayList<>();
    for (String f : committed(base)) {
      lines.addAll(readLines(base.resolve(f)));
    }
    return lines;
  }

  static List<String> readLines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String name(String relative) {
    int slash = relative.lastIndexOf('/');
    return slash < 0 ? relative : relative.substring(slash + 1);
  }

  static Set<PosixFilePermission> perms(Path p) throws IOException {
    return Files.getPosixFilePermissions(p);
  }

  static Set<PosixFilePermission> perms(String s) {
    return PosixFilePermissions.fromString(s);
  }

  static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /**
   * Makes {@code dir} refuse new entries, also for root (who ignores permission bits): with
   * {@code chattr +i} as root, by taking the write bit otherwise. Checks that it worked, since a
   * test that relies on it would otherwise prove nothing. Close the result to undo it.
   */
  static AutoCloseable makeUnwritable(Path dir) throws Exception {
    AutoCloseable undo;
    if (isRoot()) {
      run("chattr", "+i", dir.toString());
      undo = () -> run("chattr", "-i", dir.toString());
    } else {
      Set<PosixFilePermission> before = Files.getPosixFilePermissions(dir);
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-x------"));
      undo = () -> Files.setPosixFilePermissions(dir, before);
    }
    Path probe = dir.resolve("probe-" + System.nanoTime());
    try {
      Files.createFile(probe);
      Files.delete(probe);
      undo.close();
      throw new AssertionError("could not make " + dir + " unwritable: a file could still be created in it");
    } catch (IOException expected) {
      return undo;
    }
  }

  static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
    }
  }
}
