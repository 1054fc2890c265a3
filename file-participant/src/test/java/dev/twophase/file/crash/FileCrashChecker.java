package dev.twophase.file.crash;

import static dev.twophase.crash.ChildProgram.ranges;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.twophase.crash.ChildProgram;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Judges what the file crash tests left on disk, knowing nothing of the coordinator or the
 * participant's code: it reads only the committed part files ({@code part-*}, what a downstream
 * reader would read) under directories {@code a} (lines) and {@code b} (JSON lines), and the
 * recovery reports the child writes.
 *
 * <ul>
 *   <li>Right after a recovery both directories show exactly {@code 0 .. position-1}, each once,
 *       where {@code position} is the input position the application was restored to: atomicity
 *       (both the same) and the resume point (the decided output ends where the input resumes).
 *   <li>After a clean finish both show exactly {@code 0 .. N-1}, each once, and no in-progress
 *       file of this coordinator is left.
 *   <li>Always: every committed line parses (no torn or half-written part is ever visible), each
 *       line record sits in its bucket directory, each JSON line is one document with the
 *       expected text.
 * </ul>
 */
public final class FileCrashChecker {

  /** The two output directories under the data directory, in registration order. */
  public static final List<String> DIRS = List.of("a", "b");

  private static final ObjectMapper JSON = new ObjectMapper();

  private FileCrashChecker() {}

  /** What a reader sees in one directory: record -> times visible, and anything malformed. */
  public record Visible(TreeMap<Long, Integer> records, List<String> problems) {}

  /** Committed part files under {@code dir} (recursively), relative paths with '/', sorted. */
  public static List<String> committedFiles(Path dir) throws IOException {
    return files(dir, name -> name.startsWith("part-"));
  }

  /** In-progress part files under {@code dir} (recursively), relative, sorted. */
  public static List<String> inProgressFiles(Path dir) throws IOException {
    return files(dir, name -> name.startsWith(".part-") && name.endsWith(".inprogress"));
  }

  private static List<String> files(Path dir, java.util.function.Predicate<String> name) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> name.test(p.getFileName().toString()))
          .map(p -> dir.relativize(p).toString().replace('\\', '/'))
          .sorted()
          .toList();
    }
  }

  /** Reads directory {@code which} ("a" or "b") under {@code dataDir}. */
  public static Visible read(Path dataDir, String which) throws IOException {
    Path dir = dataDir.resolve(which);
    TreeMap<Long, Integer> records = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (String f : committedFiles(dir)) {
      List<String> lines;
      try {
        lines = Files.readAllLines(dir.resolve(f), StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        continue;
      }
      if (lines.isEmpty()) {
        problems.add(which + "/" + f + " is empty");
      }
      for (String line : lines) {
        Long n = which.equals("a") ? parseLine(line, f, problems) : parseJson(line, f, problems);
        if (n != null) {
          records.merge(n, 1, Integer::sum);
        }
      }
    }
    return new Visible(records, problems);
  }

  private static Long parseLine(String line, String file, List<String> problems) {
    if (!line.startsWith("record ")) {
      problems.add("a/" + file + ": not a record line: '" + line + "'");
      return null;
    }
    long n;
    try {
      n = Long.parseLong(line.substring("record ".length()));
    } catch (NumberFormatException e) {
      problems.add("a/" + file + ": not a record line: '" + line + "'");
      return null;
    }
    String bucket = file.contains("/") ? file.substring(0, file.lastIndexOf('/')) : "";
    if (!bucket.equals(FileCrashChild.bucketOf(n))) {
      problems.add("a/" + file + ": record " + n + " is in bucket '" + bucket + "', not '" + FileCrashChild.bucketOf(n) + "'");
    }
    return n;
  }

  private static Long parseJson(String line, String file, List<String> problems) {
    try {
      JsonNode node = JSON.readTree(line);
      long n = node.get("n").asLong();
      if (!FileCrashChild.jsonText(n).equals(node.path("text").asText(null)) || node.size() != 2) {
        problems.add("b/" + file + ": unexpected document " + line);
      }
      return n;
    } catch (IOException | RuntimeException e) {
      problems.add("b/" + file + ": not one JSON document: '" + line + "' (" + e.getMessage() + ")");
      return null;
    }
  }

  // ------------------------------------------------------------------ reports

  /** What a child saw right after recovery. */
  public record Report(long position, long checkpointId, Map<String, SortedMap<Long, Integer>> visible, List<String> problems) {}

  /** Writes the restored position and what both directories show now, atomically. */
  public static void writeReport(Path report, long position, long checkpointId, Path dataDir) throws IOException {
    Properties props = new Properties();
    props.setProperty("position", Long.toString(position));
    props.setProperty("checkpoint", Long.toString(checkpointId));
    List<String> problems = new ArrayList<>();
    for (String d : DIRS) {
      Visible v = read(dataDir, d);
      StringBuilder sb = new StringBuilder();
      v.records().forEach((n, times) -> {
        for (int i = 0; i < times; i++) {
          sb.append(sb.length() == 0 ? "" : ",").append(n);
        }
      });
      props.setProperty(d, sb.toString());
      problems.addAll(v.problems());
    }
    props.setProperty("problems", String.join(" | ", problems));
    StringWriter text = new StringWriter();
    props.store(text, null);
    ChildProgram.writeReport(report, text.toString());
  }

  public static Report readReport(Path report) throws IOException {
    Properties props = ChildProgram.readReport(report);
    Map<String, SortedMap<Long, Integer>> visible = new TreeMap<>();
    for (String d : DIRS) {
      visible.put(d, ChildProgram.counts(props.getProperty(d, "")));
    }
    String problems = props.getProperty("problems", "").trim();
    return new Report(Long.parseLong(props.getProperty("position")), Long.parseLong(props.getProperty("checkpoint")),
        visible, problems.isEmpty() ? List.of() : List.of(problems.split(" \\| ")));
  }

  // ------------------------------------------------------------------ checks

  /** Right after recovery: both directories show exactly {@code 0 .. position-1}, once each. */
  public static List<String> checkRecovery(Report report) {
    List<String> findings = new ArrayList<>(report.problems());
    for (String d : DIRS) {
      checkExactlyPrefix(report.visible().get(d), report.position(),
          "after recovery (position " + report.position() + ", checkpoint " + report.checkpointId() + "), directory " + d,
          findings);
    }
    if (!report.visible().get("a").equals(report.visible().get("b"))) {
      findings.add("after recovery the directories differ (atomicity): a=" + ranges(report.visible().get("a").keySet())
          + " b=" + ranges(report.visible().get("b").keySet()));
    }
    return findings;
  }

  /**
   * After a clean finish: both directories show exactly {@code 0 .. n-1} once, and the only
   * in-progress files left are {@code foreign} ones (other coordinators' and participants').
   */
  public static List<String> checkFinal(Path dataDir, long n, Map<String, List<String>> foreign) throws IOException {
    List<String> findings = new ArrayList<>();
    TreeMap<Long, Integer> first = null;
    for (String d : DIRS) {
      Visible v = read(dataDir, d);
      findings.addAll(v.problems());
      checkExactlyPrefix(v.records(), n, "at the end, directory " + d, findings);
      if (first != null && !first.equals(v.records())) {
        findings.add("at the end the directories differ: a=" + ranges(first.keySet()) + " b=" + ranges(v.records().keySet()));
      }
      first = v.records();
      List<String> left = new ArrayList<>(inProgressFiles(dataDir.resolve(d)));
      List<String> expectedForeign = foreign.getOrDefault(d, List.of());
      if (!left.containsAll(expectedForeign)) {
        findings.add("at the end, directory " + d + ": foreign in-progress files were deleted: expected "
            + expectedForeign + ", found " + left);
      }
      left.removeAll(expectedForeign);
      if (!left.isEmpty()) {
        findings.add("at the end, directory " + d + ": in-progress files of this coordinator left: " + left);
      }
    }
    return findings;
  }

  private static void checkExactlyPrefix(SortedMap<Long, Integer> records, long end, String what, List<String> findings) {
    List<Long> missing = new ArrayList<>();
    for (long i = 0; i < end; i++) {
      if (!records.containsKey(i)) {
        missing.add(i);
      }
    }
    TreeSet<Long> duplicated = new TreeSet<>();
    TreeSet<Long> beyond = new TreeSet<>();
    records.forEach((n, times) -> {
      if (times > 1) {
        duplicated.add(n);
      }
      if (n < 0 || n >= end) {
        beyond.add(n);
      }
    });
    if (!missing.isEmpty()) {
      findings.add(what + ": missing " + ranges(missing));
    }
    if (!duplicated.isEmpty()) {
      findings.add(what + ": duplicated " + ranges(duplicated));
    }
    if (!beyond.isEmpty()) {
      findings.add(what + ": visible beyond the decided end " + end + ": " + ranges(beyond));
    }
  }


}
