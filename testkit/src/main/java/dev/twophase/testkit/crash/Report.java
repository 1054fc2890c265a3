package dev.twophase.testkit.crash;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What a child JVM saw at one instant, written by the child and read by the test JVM: before its
 * recovery, right after it, or at the end. For each participant, the committed records (by
 * number, every copy), those that map to no number, and at the end the transactions left open; the
 * restored position after a recovery; the points reached so far at the end.
 */
record Report(
    String phase,
    long position,
    long checkpoint,
    Map<String, TreeMap<Long, Integer>> committed,
    Map<String, List<String>> unknown,
    Map<String, List<String>> open,
    Map<String, Long> hits) {

  static final String BEFORE = "before";
  static final String RECOVERED = "recovered";
  static final String END = "end";
  /** At most this many unknown records are kept, for messages. */
  static final int UNKNOWN_KEPT = 20;

  /** Record number -> copies visible. */
  static TreeMap<Long, Integer> counts(Collection<Long> numbers) {
    TreeMap<Long, Integer> counts = new TreeMap<>();
    numbers.forEach(n -> counts.merge(n, 1, Integer::sum));
    return counts;
  }

  /** Writes this report to {@code file} in one atomic rename: a halted child never leaves half. */
  void write(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("phase", phase);
    p.setProperty("position", Long.toString(position));
    p.setProperty("checkpoint", Long.toString(checkpoint));
    p.setProperty("participants", String.join(",", committed.keySet()));
    for (Map.Entry<String, TreeMap<Long, Integer>> e : committed.entrySet()) {
      StringBuilder sb = new StringBuilder();
      e.getValue().forEach((n, times) -> {
        for (int i = 0; i < times; i++) {
          sb.append(sb.length() == 0 ? "" : ",").append(n);
        }
      });
      p.setProperty("committed." + e.getKey(), sb.toString());
    }
    unknown.forEach((k, v) -> p.setProperty("unknown." + k, String.join("\n", v)));
    open.forEach((k, v) -> p.setProperty("open." + k, String.join("\n", v)));
    hits.forEach((k, v) -> p.setProperty("hits." + k, Long.toString(v)));
    StringWriter text = new StringWriter();
    p.store(text, null);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text.toString(), StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Reads a report written by {@link #write}. */
  static Report read(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    }
    Map<String, TreeMap<Long, Integer>> committed = new LinkedHashMap<>();
    Map<String, List<String>> unknown = new LinkedHashMap<>();
    Map<String, List<String>> open = new LinkedHashMap<>();
    String participants = p.getProperty("participants", "");
    for (String name : participants.isEmpty() ? new String[0] : participants.split(",")) {
      List<Long> numbers = new ArrayList<>();
      String list = p.getProperty("committed." + name, "");
      if (!list.isEmpty()) {
        for (String s : list.split(",")) {
          numbers.add(Long.parseLong(s));
        }
      }
      committed.put(name, counts(numbers));
      unknown.put(name, lines(p.getProperty("unknown." + name)));
      open.put(name, lines(p.getProperty("open." + name)));
    }
    Map<String, Long> hits = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("hits.")) {
        hits.put(key.substring("hits.".length()), Long.parseLong(p.getProperty(key)));
      }
    }
    return new Report(p.getProperty("phase"), Long.parseLong(p.getProperty("position", "-1")),
        Long.parseLong(p.getProperty("checkpoint", "-1")), committed, unknown, open, hits);
  }

  private static List<String> lines(String value) {
    return value == null || value.isEmpty() ? List.of() : List.of(value.split("\n"));
  }
}
