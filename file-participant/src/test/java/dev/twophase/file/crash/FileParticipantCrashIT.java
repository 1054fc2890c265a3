package dev.twophase.file.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.ProtocolPoint;
import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.ChildProgram;
import dev.twophase.crash.CrashScenario;
import dev.twophase.file.FilePoints;
import dev.twophase.testing.CrashInjector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kills a child JVM ({@link FileCrashChild}: a coordinator over a FileStateLog with two file
 * participants, lines with buckets in directory a and JSON lines in directory b, several part files
 * per transaction) at every {@link ProtocolPoint}, then runs a new JVM that recovers and finishes.
 * {@link FileCrashChecker} then proves from the committed files alone that right after recovery
 * both directories show the same prefix {@code 0..p-1} with {@code p} the restored input position,
 * and that after the clean finish every input 0..N-1 is in each directory exactly once with no
 * in-progress file of this coordinator left (while other coordinators' and participants'
 * in-progress files planted in the same directories survive every start-up cleanup).
 *
 * <p>The same for the file participant's own points ({@link FilePoints}): in the middle of a
 * commit with several parts (between two renames), after a pre-commit's fsyncs, after a part was
 * created, in a background directory sync, and in the middle of recovery's abort.
 *
 * <p>A crash case passes only if the armed point really halted the child (exit status
 * {@value CrashInjector#EXIT_CODE} and the point's log line).
 */
class FileParticipantCrashIT {

  /** 12 checkpoints of K inputs, and the finish checkpoint with the last 2. */
  static final long N = 62;
  static final int K = 5;
  static final long CHECKPOINTS = N / K + 1;
  static final long SMALL_SEGMENTS = 4096;

  @TempDir Path tmp;

  static Stream<Arguments> crashes() {
    List<Arguments> cases = new ArrayList<>();
    for (ProtocolPoint point : ProtocolPoint.values()) {
      switch (point) {
        case DURING_RECOVERY_COMMIT -> { } // see crashDuringRecoveryCommit
        case BEFORE_PRE_COMMIT, DURING_LOG_APPEND, AFTER_LOG_APPEND, DURING_COMPACTION -> {
          cases.add(Arguments.of(point, 1));
          cases.add(Arguments.of(point, 3));
        }
        default -> cases.add(Arguments.of(point, 3));
      }
    }
    // In the finish checkpoint (no transaction is begun after it).
    cases.add(Arguments.of(ProtocolPoint.BETWEEN_PRE_COMMITS, (int) CHECKPOINTS));
    cases.add(Arguments.of(ProtocolPoint.AFTER_LOG_APPEND, (int) CHECKPOINTS));
    cases.add(Arguments.of(ProtocolPoint.BETWEEN_COMMITS, (int) CHECKPOINTS));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}:{1}")
  @MethodSource("crashes")
  void crashThenRecover(ProtocolPoint point, int hit) throws Exception {
    boolean compaction = point == ProtocolPoint.DURING_COMPACTION;
    Scenario s = new Scenario(tmp, compaction ? SMALL_SEGMENTS : 0, compaction ? 2 : 0);

    ChildJvm.Run crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point.name());
    checkReportIfAny(crashed);

    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    FileCrashChecker.Report report = checkReport(clean);
    assertRestoredPosition(point, hit, report.position(), clean);
    assertFinal(s);
  }

  /**
   * A crash while recovery commits, after a first crash right after checkpoint 3 was decided: at
   * hit 1 the lines participant's part files of a checkpoint are renamed and the JSON one's not;
   * the next recovery must finish the job in both, exactly once.
   */
  @ParameterizedTest(name = "DURING_RECOVERY_COMMIT:{0}")
  @ValueSource(ints = {1, 2})
  void crashDuringRecoveryCommit(int hit) throws Exception {
    Scenario s = new Scenario(tmp, 0, 0);
    ChildJvm.Run first = s.run(ProtocolPoint.AFTER_LOG_APPEND + ":3");
    assertCrashedAt(first, ProtocolPoint.AFTER_LOG_APPEND.name());

    ChildJvm.Run during = s.run(ProtocolPoint.DURING_RECOVERY_COMMIT + ":" + hit);
    assertCrashedAt(during, ProtocolPoint.DURING_RECOVERY_COMMIT.name());
    assertFalse(during.recovered(), "the child crashed inside recovery, yet reported it recovered\n" + during.describe());

    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    FileCrashChecker.Report report = checkReport(clean);
    assertEquals(3L * K, report.position(),
        "checkpoint 3 was decided before the first crash: the application resumes after it\n" + clean.describe());
    assertFinal(s);
  }

  /**
   * The file participants' own points. Hits count both participants (lines, then JSON, per
   * operation): {@code file.commit.afterRename:2} halts between the first two renames of the first
   * commit, whose lines transaction has parts in several buckets, so recovery finds one part final
   * and the others in progress; the later hits fall in later commits, also between the JSON
   * participant's parts. Wherever it halts, right after recovery both directories show the same
   * prefix of the input, and the clean finish every input once.
   */
  @ParameterizedTest(name = "{0}:{1}")
  @MethodSource("fileCrashes")
  void crashInsideTheFileParticipantThenRecover(String point, int hit) throws Exception {
    Scenario s = new Scenario(tmp, 0, 0);
    ChildJvm.Run crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point);
    checkReportIfAny(crashed);

    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    FileCrashChecker.Report report = checkReport(clean);
    long position = report.position();
    assertTrue(position >= 0 && position <= N && (position % K == 0 || position == N), clean.describe());
    if (point.equals(FilePoints.COMMIT_AFTER_RENAME) || point.equals(FilePoints.COMMIT_DIRECTORY_SYNC)) {
      assertTrue(position >= K, "a commit ran, so checkpoint 1 at least was decided\n" + clean.describe());
    }
    assertFinal(s);
  }

  static Stream<Arguments> fileCrashes() {
    return Stream.of(
        Arguments.of(FilePoints.COMMIT_AFTER_RENAME, 1),
        Arguments.of(FilePoints.COMMIT_AFTER_RENAME, 2),
        Arguments.of(FilePoints.COMMIT_AFTER_RENAME, 9),
        Arguments.of(FilePoints.COMMIT_DIRECTORY_SYNC, 3),
        Arguments.of(FilePoints.PRE_COMMIT_AFTER_FSYNC, 3),
        Arguments.of(FilePoints.PRE_COMMIT_AFTER_FSYNC, 4),
        Arguments.of(FilePoints.WRITE_AFTER_CREATE_PART, 7),
        Arguments.of(FilePoints.BACKGROUND_DIRECTORY_SYNC, 5));
  }

  /**
   * A crash while recovery aborts the transaction that was open at the first crash: its parts are
   * partly deleted; the next start-up deletes the rest.
   */
  @Test
  void crashDuringRecoveryAbort() throws Exception {
    Scenario s = new Scenario(tmp, 0, 0);
    ChildJvm.Run first = s.run(ProtocolPoint.BEFORE_PRE_COMMIT + ":3");
    assertCrashedAt(first, ProtocolPoint.BEFORE_PRE_COMMIT.name());
    ChildJvm.Run during = s.run(FilePoints.ABORT_AFTER_DELETE + ":1");
    assertCrashedAt(during, FilePoints.ABORT_AFTER_DELETE);
    assertFalse(during.recovered(), "the child crashed inside recovery, yet reported it recovered\n" + during.describe());

    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    FileCrashChecker.Report report = checkReport(clean);
    assertEquals(2L * K, report.position(), "checkpoint 2 was the last decided\n" + clean.describe());
    assertFinal(s);
  }

  /** Several crashes in a row, with a compacting log shared by an idle coordinator. */
  @Test
  void crashesInARow() throws Exception {
    Scenario s = new Scenario(tmp, SMALL_SEGMENTS, 1);
    for (String p : List.of(
        ProtocolPoint.BETWEEN_PRE_COMMITS + ":2",
        ProtocolPoint.AFTER_LOG_APPEND + ":2",
        ProtocolPoint.DURING_RECOVERY_COMMIT + ":1",
        ProtocolPoint.BETWEEN_COMMITS + ":3",
        ProtocolPoint.DURING_COMPACTION + ":2",
        FilePoints.COMMIT_AFTER_RENAME + ":4",
        ProtocolPoint.AFTER_COMMITS + ":2")) {
      ChildJvm.Run c = s.run(p);
      assertCrashedAt(c, p.substring(0, p.indexOf(':')));
      checkReportIfAny(c);
    }
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    assertFinal(s);
  }

  /** The harness itself: without a crash the child runs to the end, and a second run adds nothing. */
  @Test
  void cleanRunsWithoutCrash() throws Exception {
    Scenario s = new Scenario(tmp, 0, 0);
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    assertEquals(0, checkReport(clean).position(), clean.describe());
    assertFinal(s);
    ChildJvm.Run again = s.run(null);
    assertDone(again);
    assertEquals(N, checkReport(again).position(), again.describe());
    assertFinal(s);
    assertTrue(FileCrashChecker.committedFiles(s.dataDir().resolve("a")).size() >= 2 * N / 3,
        "transactions have several part files in several buckets");
  }

  // ------------------------------------------------------------------ assertions

  static void assertCrashedAt(ChildJvm.Run child, String point) {
    if (child.timedOut()) {
      fail("child did not finish in time\n" + child.describe());
    }
    if (child.exitCode() == 0) {
      fail("the crash point " + point + " was never reached: the child ran to the end, so this "
          + "case proves nothing\n" + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(),
        "the child failed instead of crashing at " + point + "\n" + child.describe());
    assertTrue(child.err().contains("crash injected at " + point),
        "exit status 86, but no 'crash injected at " + point + "' in the child's log\n" + child.describe());
  }

  static void assertDone(ChildJvm.Run child) {
    assertTrue(!child.timedOut() && child.exitCode() == 0 && child.out().lines().anyMatch("DONE"::equals),
        "the clean child did not finish\n" + child.describe());
  }

  static FileCrashChecker.Report checkReport(ChildJvm.Run child) throws IOException {
    assertTrue(child.recovered(), "the child wrote no recovery report\n" + child.describe());
    FileCrashChecker.Report report = FileCrashChecker.readReport(child.report());
    List<String> findings = FileCrashChecker.checkRecovery(report);
    assertTrue(findings.isEmpty(), "right after recovery:\n  " + String.join("\n  ", findings) + "\n" + child.describe());
    return report;
  }

  static void checkReportIfAny(ChildJvm.Run child) throws IOException {
    if (child.recovered()) {
      checkReport(child);
    }
  }

  static void assertFinal(Scenario s) throws IOException {
    List<String> findings = FileCrashChecker.checkFinal(s.dataDir(), N, s.foreign);
    StringBuilder all = new StringBuilder();
    for (ChildJvm.Run c : s.children) {
      all.append(c.describe()).append('\n');
    }
    assertTrue(findings.isEmpty(), "after the clean finish:\n  " + String.join("\n  ", findings) + "\n" + all);
    for (Map.Entry<Path, String> e : s.foreignContent.entrySet()) {
      assertEquals(e.getValue(), Files.readString(e.getKey()), "foreign file " + e.getKey() + " changed");
    }
  }

  /**
   * Where the application must resume after a crash at {@code point}'s {@code hit}-th hit, from the
   * protocol alone: checkpoint c covers inputs 0 .. c*K-1 (the last one all N), and a checkpoint is
   * decided exactly when its record is durable.
   */
  static void assertRestoredPosition(ProtocolPoint point, int hit, long position, ChildJvm.Run child) {
    String msg = "restored position after a crash at " + point + ":" + hit + "\n" + child.describe();
    switch (point) {
      case BEFORE_PRE_COMMIT, BETWEEN_PRE_COMMITS, AFTER_PRE_COMMITS -> assertEquals(end(hit - 1L), position, msg);
      // Appends: 1 = the start-up record, h = checkpoint h-1, which is torn: resume after h-2.
      case DURING_LOG_APPEND -> assertEquals(end(Math.max(0, hit - 2L)), position, msg);
      case AFTER_LOG_APPEND -> assertEquals(end(hit), position, msg);
      // Commits run behind the decisions: checkpoint `hit` at least was decided.
      case BETWEEN_COMMITS, AFTER_COMMITS -> assertTrue(position >= end(hit) && position <= N
          && (position % K == 0 || position == N), msg);
      default -> assertTrue(position >= 0 && position <= N && (position % K == 0 || position == N), msg);
    }
  }

  /** The input position after checkpoint c. */
  static long end(long c) {
    return Math.min(N, c * K);
  }

  // ------------------------------------------------------------------ children

  /** One test's directories and the child JVMs run over them, one after the other. */
  static final class Scenario {
    final Path root;
    final long segmentBytes;
    final int bystanders;
    final List<ChildJvm.Run> children = new ArrayList<>();
    /** In-progress files of other coordinators and participants, per directory: must survive. */
    final Map<String, List<String>> foreign = new LinkedHashMap<>();
    final Map<Path, String> foreignContent = new LinkedHashMap<>();

    Scenario(Path root, long segmentBytes, int bystanders) throws IOException {
      this.root = root;
      this.segmentBytes = segmentBytes;
      this.bystanders = bystanders;
      Files.createDirectories(root.resolve("state"));
      plant("a", "even/m0/.part-other-" + FileCrashChild.LINES + "-1-0-0.txt.inprogress");
      plant("a", "odd/m1/.part-" + FileCrashChild.COORDINATOR + "-lines2-1-0-0.txt.inprogress");
      plant("a", ".part-" + FileCrashChild.COORDINATOR + "-" + FileCrashChild.JSON + "-1-5-0.txt.inprogress");
      plant("b", ".part-other-" + FileCrashChild.JSON + "-9-0-0.jsonl.inprogress");
      plant("b", ".part-" + FileCrashChild.COORDINATOR + "-" + FileCrashChild.LINES + "-1-5-0.jsonl.inprogress");
    }

    private void plant(String dir, String relative) throws IOException {
      Path file = dataDir().resolve(dir).resolve(relative);
      Files.createDirectories(file.getParent());
      String content = "foreign " + relative + "\n";
      Files.writeString(file, content);
      foreign.computeIfAbsent(dir, d -> new ArrayList<>()).add(relative);
      foreignContent.put(file, content);
    }

    Path dataDir() {
      return root.resolve("data");
    }

    ChildJvm.Run run(String crashAt) throws IOException, InterruptedException {
      String armed = crashAt;
      Map<String, String> properties = new LinkedHashMap<>();
      properties.put(FileCrashChild.SEGMENT_BYTES, Long.toString(segmentBytes));
      properties.put(FileCrashChild.BYSTANDERS, Integer.toString(bystanders));
      if (crashAt != null && crashAt.startsWith("file.")) {
        properties.put(FileCrashChild.FILE_CRASH_AT, crashAt);
        crashAt = null;
      }
      ChildJvm.Run child = ChildJvm.runNumbered(root, children.size() + 1, FileCrashChild.class,
          properties,
          crashAt,
          List.of(root.resolve("state").toString(), dataDir().toString(), Long.toString(N),
              Integer.toString(K)),
          CrashScenario.CHILD_TIMEOUT);
      children.add(child);
      if (child.exitCode() == CrashInjector.EXIT_CODE) {
        // A crash inside a log write stands for a power loss there: cut the record or segment.
        ChildProgram.tearLastWrite(root.resolve("state"), armed);
      }
      return child;
    }
  }
}
