package dev.twophase.crash;

import static dev.twophase.crash.ChildProgram.ranges;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Judges what the crash tests left on disk. It knows nothing of the coordinator: it reads only the
 * participants' {@code *.committed} files (one long per line) and the recovery reports the child
 * writes, and checks them against what exactly-once output means for an input 0, 1, 2, ... written
 * in order to two participants.
 *
 * <ul>
 *   <li>Right after a recovery, both participants show the same records (atomicity), each exactly
 *       once, and they are exactly {@code 0 .. position-1}, where {@code position} is the input
 *       position the application was restored to (it resumes where the decided output ends).
 *   <li>After a clean finish, both show exactly {@code 0 .. N-1}, each once, and no
 *       {@code .open}/{@code .prepared} file is left.
 * </ul>
 */
public final class CrashChecker {

  /** Participants of the crash child, in registration order. */
  public static final List<String> PARTICIPANTS = List.of("a", "b");

  private CrashChecker() {}

  /** What checks found; counts add up over checks. */
  public static final class Findings {
    /** Records that must be visible and are not. */
    public long lost;
    /** Extra copies of records (a record visible k times counts k - 1). */
    public long duplicated;
    /** Records visible that no decided checkpoint covers (beyond the restored position). */
    public long undecidedVisible;
    /** Recovery checks at which the participants did not show the same records. */
    public long atomicityViolations;
    /** {@code .open}/{@code .prepared} files left after a clean finish. */
    public long leftovers;
    public final List<String> messages = new ArrayList<>();

    public boolean ok() {
      return lost == 0 && duplicated == 0 && undecidedVisible == 0 && atomicityViolations == 0 && leftovers == 0;
    }

    public void add(Findings other) {
      lost += other.lost;
      duplicated += other.duplicated;
      undecidedVisible += other.undecidedVisible;
      atomicityViolations += other.atomicityViolations;
      leftovers += other.leftovers;
      messages.addAll(other.messages);
    }

    @Override
    public String toString() {
      return "lost=" + lost + " duplicated=" + duplicated + " undecided-visible=" + undecidedVisible
          + " atomicity-violations=" + atomicityViolations + " leftovers=" + leftovers
          + (messages.isEmpty() ? "" : "\n  " + String.join("\n  ", messages));
    }
  }

  /** What a child saw right after recovery: the restored position and the committed records. */
  public record RecoveryReport(long position, long checkpointId, Map<String, SortedMap<Long, Integer>> committed) {}

  // ------------------------------------------------------------------ reading

  /** The multiset of committed records of one participant directory: record -> times visible. */
  public static SortedMap<Long, Integer> committed(Path participantDir) throws IOException {
    TreeMap<Long, Integer> records = new TreeMap<>();
    if (!Files.isDirectory(participantDir)) {
      return records;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(participantDir, "*" + DiskParticipant.COMMITTED)) {
      for (Path f : files) {
        List<String> lines;
        try {
          lines = Files.readAllLines(f, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
          continue;
        }
        for (String line : lines) {
          if (!line.isEmpty()) {
            records.merge(Long.parseLong(line.trim()), 1, Integer::sum);
          }
        }
      }
    }
    return records;
  }

  /** {@code .open} and {@code .prepared} files in a participant directory. */
  public static List<String> inProgressFiles(Path participantDir) throws IOException {
    List<String> found = new ArrayList<>();
    if (!Files.isDirectory(participantDir)) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(participantDir)) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (name.endsWith(DiskParticipant.OPEN) || name.endsWith(DiskParticipant.PREPARED)) {
          found.add(name);
        }
      }
    }
    Collections.sort(found);
    return found;
  }

  // ------------------------------------------------------------------ recovery reports

  /**
   * Writes what the participants show now, with the restored position, to {@code report}
   * (atomically: a crash never leaves half a report).
   */
  public static void writeRecoveryReport(Path report, long position, long checkpointId, Path dataDir) throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("position=").append(position).append('\n');
    sb.append("checkpoint=").append(checkpointId).append('\n');
    for (String p : PARTICIPANTS) {
      sb.append(p).append('=');
      boolean first = true;
      for (Map.Entry<Long, Integer> e : committed(dataDir.resolve(p)).entrySet()) {
        for (int i = 0; i < e.getValue(); i++) {
          if (!first) {
            sb.append(',');
          }
          sb.append(e.getKey());
          first = false;
        }
      }
      sb.append('\n');
    }
    ChildProgram.writeReport(report, sb.toString());
  }

  public static RecoveryReport readRecoveryReport(Path report) throws IOException {
    Properties props = ChildProgram.readReport(report);
    Map<String, SortedMap<Long, Integer>> committed = new TreeMap<>();
    for (String p : PARTICIPANTS) {
      committed.put(p, ChildProgram.counts(props.getProperty(p, "")));
    }
    return new RecoveryReport(
        Long.parseLong(props.getProperty("position")), Long.parseLong(props.getProperty("checkpoint")), committed);
  }

  // ------------------------------------------------------------------ checks

  /**
   * Right after recovery: every participant shows exactly {@code 0 .. position-1}, once each, and
   * all participants show the same.
   */
  public static Findings checkRecovery(RecoveryReport report, String label) {
    Findings f = new Findings();
    SortedMap<Long, Integer> first = null;
    for (String p : PARTICIPANTS) {
      SortedMap<Long, Integer> records = report.committed().get(p);
      checkExactlyPrefix(records, report.position(), label + " after recovery (position " + report.position()
          + ", checkpoint " + report.checkpointId() + "), participant " + p, f);
      if (first == null) {
        first = records;
      } else if (!first.equals(records)) {
        f.atomicityViolations++;
        f.messages.add(label + " after recovery: participants differ: " + PARTICIPANTS.get(0) + "="
            + summary(first) + " but " + p + "=" + summary(records));
      }
    }
    return f;
  }

  /** After a clean finish: every participant shows exactly {@code 0 .. n-1} once, nothing left open. */
  public static Findings checkFinal(Path dataDir, long n, String label) throws IOException {
    Findings f = new Findings();
    SortedMap<Long, Integer> first = null;
    for (String p : PARTICIPANTS) {
      Path dir = dataDir.resolve(p);
      SortedMap<Long, Integer> records = committed(dir);
      checkExactlyPrefix(records, n, label + " at the end, participant " + p, f);
      if (first == null) {
        first = records;
      } else if (!first.equals(records)) {
        f.atomicityViolations++;
        f.messages.add(label + " at the end: participants differ: " + PARTICIPANTS.get(0) + "="
            + summary(first) + " but " + p + "=" + summary(records));
      }
      List<String> left = inProgressFiles(dir);
      if (!left.isEmpty()) {
        f.leftovers += left.size();
        f.messages.add(label + " at the end, participant " + p + ": files left in progress: " + left);
      }
    }
    return f;
  }

  private static void checkExactlyPrefix(SortedMap<Long, Integer> records, long expectedEnd, String what, Findings f) {
    List<Long> missing = new ArrayList<>();
    TreeSet<Long> dup = new TreeSet<>();
    TreeSet<Long> beyond = new TreeSet<>();
    for (long i = 0; i < expectedEnd; i++) {
      if (!records.containsKey(i)) {
        missing.add(i);
      }
    }
    for (Map.Entry<Long, Integer> e : records.entrySet()) {
      if (e.getValue() > 1) {
        f.duplicated += e.getValue() - 1;
        dup.add(e.getKey());
      }
      if (e.getKey() < 0 || e.getKey() >= expectedEnd) {
        f.undecidedVisible += e.getValue();
        beyond.add(e.getKey());
      }
    }
    f.lost += missing.size();
    if (!missing.isEmpty()) {
      f.messages.add(what + ": " + missing.size() + " record(s) missing of 0.." + (expectedEnd - 1) + ": " + ranges(missing));
    }
    if (!dup.isEmpty()) {
      f.messages.add(what + ": duplicated: " + ranges(dup));
    }
    if (!beyond.isEmpty()) {
      f.messages.add(what + ": visible beyond the decided end " + expectedEnd + ": " + ranges(beyond));
    }
  }

  /** "0..9 (10 records, 0 duplicated)". */
  static String summary(SortedMap<Long, Integer> records) {
    long total = records.values().stream().mapToLong(Integer::longValue).sum();
    return ranges(records.keySet()) + " (" + total + " records)";
  }
}
