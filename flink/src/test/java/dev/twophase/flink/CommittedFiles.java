package dev.twophase.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The independent reader of the tests: what a downstream reader of the file participant's output
 * sees (every committed {@code part-*} file, line by line), and what is left in progress. It knows
 * only the file naming on disk, nothing of the sink.
 */
final class CommittedFiles {

  private CommittedFiles() {}

  /** How often each line occurs in the committed files under {@code dir}. */
  static Map<String, Integer> lineCounts(Path dir) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Path file : files(dir)) {
      if (file.getFileName().toString().startsWith("part-")) {
        try {
          for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            counts.merge(line, 1, Integer::sum);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return counts;
  }

  /** The committed part files' names. */
  static List<String> committedNames(Path dir) {
    return files(dir).stream().map(p -> p.getFileName().toString()).filter(n -> n.startsWith("part-")).toList();
  }

  /** The in-progress part files left under {@code dir}. */
  static List<Path> inProgress(Path dir) {
    return files(dir).stream().filter(p -> p.getFileName().toString().endsWith(".inprogress")).toList();
  }

  /** Lines that do not occur exactly once among {@code expected}, and lines not expected at all. */
  static List<String> notExactlyOnce(Map<String, Integer> counts, long expected) {
    List<String> problems = new ArrayList<>();
    for (long i = 0; i < expected; i++) {
      int n = counts.getOrDefault(Long.toString(i), 0);
      if (n != 1) {
        problems.add(i + " x" + n);
      }
    }
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      long value;
      try {
        value = Long.parseLong(e.getKey());
      } catch (NumberFormatException notANumber) {
        problems.add("unexpected line '" + e.getKey() + "' x" + e.getValue());
        continue;
      }
      if (value < 0 || value >= expected) {
        problems.add("unexpected line '" + e.getKey() + "' x" + e.getValue());
      }
    }
    return problems.size() > 20 ? new ArrayList<>(problems.subList(0, 20)) : problems;
  }

  private static List<Path> files(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
