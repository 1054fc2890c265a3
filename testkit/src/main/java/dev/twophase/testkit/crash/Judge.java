package dev.twophase.testkit.crash;

import dev.twophase.testkit.crash.CrashFinding.Kind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Judges the children's reports of a crash test against what exactly-once output means for the
 * input 0 .. N-1, written in order, a checkpoint every k records, knowing nothing of the
 * coordinator or of the participant's code:
 * <ul>
 *   <li>right after a crash, before recovery: each participant shows a whole number of
 *       transactions, that is exactly 0 .. m-1 with m a multiple of k (or N), each once (unless the
 *       test allows readers to see commits in steps);
 *   <li>right after each recovery: each participant shows exactly 0 .. p-1, each once, where p is
 *       the position the application resumes at (what is visible equals what the restored
 *       position says, in every participant alike);
 *   <li>at the end: each shows exactly 0 .. N-1, each once, and nothing of the test's coordinator
 *       is left open.
 * </ul>
 */
final class Judge {

  private final long records;
  private final int checkpointEvery;
  private final boolean partialCommitsAllowed;

  Judge(long records, int checkpointEvery, boolean partialCommitsAllowed) {
    this.records = records;
    this.checkpointEvery = checkpointEvery;
    this.partialCommitsAllowed = partialCommitsAllowed;
  }

  /** What the first child saw before it built its coordinator: nothing of the scenario yet. */
  List<CrashFinding> atStart(Report report) {
    List<CrashFinding> findings = new ArrayList<>();
    for (Map.Entry<String, TreeMap<Long, Integer>> e : report.committed().entrySet()) {
      List<String> unknown = report.unknown().getOrDefault(e.getKey(), List.of());
      if (!e.getValue().isEmpty() || !unknown.isEmpty()) {
        findings.add(new CrashFinding(Kind.UNKNOWN_RECORD, 1, e.getKey(), "before the first child started, "
            + "committedRecords already showed " + summary(e.getValue()) + (unknown.isEmpty() ? "" : " and " + unknown)
            + ": it must read only this scenario's data (under CrashEnvironment.workDirectory(), or named "
            + "after scenarioId()), which is empty when a scenario begins"));
      }
    }
    return findings;
  }

  /** What child {@code child} saw before it recovered: what the previous child's crash left. */
  List<CrashFinding> beforeRecovery(int child, Report report) {
    List<CrashFinding> findings = new ArrayList<>();
    String when = "right after the crash of child #" + (child - 1) + ", before any recovery";
    for (Map.Entry<String, TreeMap<Long, Integer>> e : report.committed().entrySet()) {
      String participant = e.getKey();
      TreeMap<Long, Integer> visible = e.getValue();
      unknown(child, participant, report, when, findings);
      duplicated(child, participant, visible, when, findings);
      if (partialCommitsAllowed || visible.isEmpty()) {
        continue;
      }
      long end = visible.lastKey() + 1;
      List<Long> holes = missing(visible, end);
      if (!holes.isEmpty()) {
        findings.add(new CrashFinding(Kind.PARTIAL_COMMIT, child, participant, when + ", records "
            + ranges(holes) + " are missing below the highest visible record " + (end - 1) + " (visible: "
            + summary(visible) + "): part of a transaction, or a later transaction before an earlier "
            + "one, became visible. A commit must make its whole transaction visible at once"));
      } else if (end % checkpointEvery != 0 && end != records) {
        long from = end - end % checkpointEvery;
        long to = Math.min(from + checkpointEvery, records) - 1;
        findings.add(new CrashFinding(Kind.PARTIAL_COMMIT, child, participant, when + ", records 0.." + (end - 1)
            + " are visible, but transactions end at multiples of " + checkpointEvery + ": the transaction of records "
            + from + ".." + to + " is partly visible. Its commit publishes the transaction in steps, and a "
            + "crash between them showed a reader part of it; make the commit atomic (one rename, one "
            + "database transaction), or, if readers of your resource accept it, allow it with "
            + "CrashTest.Builder.allowPartialCommitsBeforeRecovery()"));
      }
    }
    return findings;
  }

  /** What child {@code child} saw right after its recovery. */
  List<CrashFinding> afterRecovery(int child, Report report) {
    List<CrashFinding> findings = new ArrayList<>();
    long position = report.position();
    String when = "right after child #" + child + " recovered (the application resumes at record " + position
        + ", after checkpoint " + report.checkpoint() + ")";
    for (Map.Entry<String, TreeMap<Long, Integer>> e : report.committed().entrySet()) {
      String participant = e.getKey();
      TreeMap<Long, Integer> visible = e.getValue();
      unknown(child, participant, report, when, findings);
      duplicated(child, participant, visible, when, findings);
      List<Long> lost = missing(visible, position);
      if (!lost.isEmpty()) {
        findings.add(new CrashFinding(Kind.LOST, child, participant, when + ", records " + ranges(lost)
            + " are not visible, though they were decided (the application will not write them again): "
            + "a commit that was not durable when it returned, a recoverAndCommit that did not finish what "
            + "the crash interrupted, or an ALREADY_COMMITTED for a transaction not fully committed. "
            + "Visible: " + summary(visible)));
      }
      List<Long> beyond = new ArrayList<>(visible.tailMap(position, true).keySet());
      if (!beyond.isEmpty()) {
        findings.add(new CrashFinding(Kind.BEYOND_POSITION, child, participant, when + ", records "
            + ranges(beyond) + " are visible, though their checkpoint was never decided (the application "
            + "writes them again): recoverAndAbort or finishRecoveringContext must roll back what the "
            + "crash left open or prepared, and nothing but commit may publish. Visible: " + summary(visible)));
      }
    }
    return findings;
  }

  /** What the last child saw at the end, after its coordinator was closed. */
  List<CrashFinding> atEnd(int child, Report report) {
    List<CrashFinding> findings = new ArrayList<>();
    String when = "at the end of child #" + child + " (all " + records + " records written, the last checkpoint "
        + "committed, the coordinator closed)";
    for (Map.Entry<String, TreeMap<Long, Integer>> e : report.committed().entrySet()) {
      String participant = e.getKey();
      TreeMap<Long, Integer> visible = e.getValue();
      unknown(child, participant, report, when, findings);
      duplicated(child, participant, visible, when, findings);
      List<Long> lost = missing(visible, records);
      if (!lost.isEmpty()) {
        findings.add(new CrashFinding(Kind.LOST, child, participant, when + ", records " + ranges(lost)
            + " are not visible. Visible: " + summary(visible)));
      }
    }
    for (Map.Entry<String, List<String>> e : report.open().entrySet()) {
      if (!e.getValue().isEmpty()) {
        findings.add(new CrashFinding(Kind.LEFT_OPEN, child, e.getKey(), when + ", the resource still holds "
            + e.getValue().size() + " transaction(s) of the test's coordinator open or prepared: "
            + e.getValue() + ". finishRecoveringContext must abort this coordinator's transactions that "
            + "recovery did not handle (isOwnTransactionName), and abort must end what it is given"));
      }
    }
    return findings;
  }

  private void unknown(int child, String participant, Report report, String when, List<CrashFinding> into) {
    List<String> unknown = report.unknown().getOrDefault(participant, List.of());
    if (!unknown.isEmpty()) {
      into.add(new CrashFinding(Kind.UNKNOWN_RECORD, child, participant, when + ", committedRecords returned "
          + "records that record(n) gives for no n in 0.." + (records - 1) + " (first " + unknown.size() + "): " + unknown
          + ". Check that committedRecords reads only this scenario's data (CrashEnvironment.workDirectory()"
          + " or scenarioId()) and returns records equal to those record(n) made"));
    }
  }

  private static void duplicated(
      int child, String participant, SortedMap<Long, Integer> visible, String when, List<CrashFinding> into) {
    TreeSet<Long> twice = new TreeSet<>();
    visible.forEach((n, times) -> {
      if (times > 1) {
        twice.add(n);
      }
    });
    if (!twice.isEmpty()) {
      into.add(new CrashFinding(Kind.DUPLICATED, child, participant, when + ", records " + ranges(twice)
          + " are visible more than once: a commit or recoverAndCommit repeated after a crash published "
          + "again instead of reporting ALREADY_COMMITTED"));
    }
  }

  private static List<Long> missing(SortedMap<Long, Integer> visible, long end) {
    List<Long> missing = new ArrayList<>();
    for (long n = 0; n < end; n++) {
      if (!visible.containsKey(n)) {
        missing.add(n);
      }
    }
    return missing;
  }

  /** "0..9 (10 records)" for messages. */
  static String summary(SortedMap<Long, Integer> visible) {
    long total = visible.values().stream().mapToLong(Integer::longValue).sum();
    return (visible.isEmpty() ? "nothing" : ranges(visible.keySet())) + " (" + total + " records)";
  }

  /** Numbers, in any order, compressed into sorted ranges: "0..9, 12, 20..29". */
  static String ranges(Collection<Long> numbers) {
    List<Long> sorted = new ArrayList<>(new TreeSet<>(numbers));
    if (sorted.isEmpty()) {
      return "{}";
    }
    StringBuilder sb = new StringBuilder();
    long start = sorted.get(0);
    long prev = start;
    for (int i = 1; i <= sorted.size(); i++) {
      if (i < sorted.size() && sorted.get(i) == prev + 1) {
        prev = sorted.get(i);
        continue;
      }
      sb.append(sb.length() == 0 ? "" : ", ").append(start == prev ? String.valueOf(start) : start + ".." + prev);
      if (i < sorted.size()) {
        start = prev = sorted.get(i);
      }
    }
    return sb.toString();
  }
}
