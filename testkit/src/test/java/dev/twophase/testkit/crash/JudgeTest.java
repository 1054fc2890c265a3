package dev.twophase.testkit.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testkit.crash.CrashFinding.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The crash test's judge on reports made by hand: each finding, and none where none is due. */
class JudgeTest {

  private final Judge judge = new Judge(40, 10, false);

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  private static List<Long> concat(List<Long> a, List<Long> b) {
    List<Long> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static Report report(long position, List<Long> subject, List<Long> witness) {
    return report(position, subject, witness, List.of(), List.of());
  }

  private static Report report(long position, List<Long> subject, List<Long> witness, List<String> unknown, List<String> open) {
    Map<String, TreeMap<Long, Integer>> committed = new LinkedHashMap<>();
    committed.put("subject", Report.counts(subject));
    committed.put("witness", Report.counts(witness));
    return new Report("x", position, position / 10, committed, Map.of("subject", unknown, "witness", List.of()),
        Map.of("subject", open, "witness", List.of()), Map.of());
  }

  private static List<Kind> kinds(List<CrashFinding> findings) {
    return findings.stream().map(CrashFinding::kind).toList();
  }

  @Test
  void wholeTransactionsBeforeRecoveryAreFine() {
    assertEquals(List.of(), judge.beforeRecovery(2, report(-1, range(0, 20), range(0, 10))));
    assertEquals(List.of(), judge.beforeRecovery(2, report(-1, List.of(), List.of())));
  }

  @Test
  void partOfATransactionBeforeRecoveryIsAPartialCommit() {
    List<CrashFinding> findings = judge.beforeRecovery(2, report(-1, range(0, 15), range(0, 10)));
    assertEquals(List.of(Kind.PARTIAL_COMMIT), kinds(findings));
    assertEquals("subject", findings.get(0).participant());
    assertTrue(findings.get(0).message().contains("records 10..19 is partly visible"), findings.get(0).message());
  }

  @Test
  void aHoleBeforeRecoveryIsAPartialCommit() {
    List<CrashFinding> findings = judge.beforeRecovery(2, report(-1, concat(range(0, 10), range(20, 30)), range(0, 10)));
    assertEquals(List.of(Kind.PARTIAL_COMMIT), kinds(findings));
    assertTrue(findings.get(0).message().contains("records 10..19 are missing below the highest visible record 29"));
  }

  @Test
  void theLastTransactionMayEndAtN() {
    Judge odd = new Judge(35, 10, false);
    assertEquals(List.of(), odd.beforeRecovery(2, report(-1, range(0, 35), range(0, 35))));
  }

  @Test
  void partialCommitsCanBeAllowed() {
    Judge lenient = new Judge(40, 10, true);
    assertEquals(List.of(), lenient.beforeRecovery(2, report(-1, range(0, 15), range(0, 10))));
    assertEquals(List.of(Kind.DUPLICATED), kinds(lenient.beforeRecovery(2, report(-1, concat(range(0, 15), range(3, 4)), range(0, 10)))));
  }

  @Test
  void afterRecoveryExactlyTheRecordsBeforeThePosition() {
    assertEquals(List.of(), judge.afterRecovery(2, report(20, range(0, 20), range(0, 20))));
    assertEquals(List.of(Kind.LOST), kinds(judge.afterRecovery(2, report(20, range(0, 15), range(0, 20)))));
    assertEquals(List.of(Kind.BEYOND_POSITION), kinds(judge.afterRecovery(2, report(20, range(0, 20), range(0, 30)))));
    assertEquals(List.of(Kind.DUPLICATED), kinds(judge.afterRecovery(2, report(20, concat(range(0, 20), range(10, 20)), range(0, 20)))));
    List<CrashFinding> lost = judge.afterRecovery(3, report(20, range(0, 15), range(0, 20)));
    assertTrue(lost.get(0).message().contains("right after child #3 recovered (the application resumes at record 20"));
    assertTrue(lost.get(0).message().contains("records 15..19 are not visible"));
  }

  @Test
  void atTheEndEveryRecordOnceAndNothingOpen() {
    assertEquals(List.of(), judge.atEnd(2, report(40, range(0, 40), range(0, 40))));
    assertEquals(List.of(Kind.LOST), kinds(judge.atEnd(2, report(40, range(0, 39), range(0, 40)))));
    assertEquals(List.of(Kind.LEFT_OPEN), kinds(judge.atEnd(2, report(40, range(0, 40), range(0, 40), List.of(), List.of("t-1-2")))));
  }

  @Test
  void recordsThatMapToNoNumberAreReported() {
    assertEquals(List.of(Kind.UNKNOWN_RECORD), kinds(judge.afterRecovery(2, report(0, List.of(), List.of(), List.of("x"), List.of()))));
  }

  @Test
  void theFirstChildMustFindNothing() {
    assertEquals(List.of(), judge.atStart(report(-1, List.of(), List.of())));
    assertEquals(List.of(Kind.UNKNOWN_RECORD), kinds(judge.atStart(report(-1, range(0, 10), List.of()))));
  }

  @Test
  void rangesAreCompressed() {
    assertEquals("0..9, 12, 20..21", Judge.ranges(List.of(21L, 20L, 12L, 0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L)));
    assertEquals("{}", Judge.ranges(List.of()));
  }

  @Test
  void reportsSurviveTheirFile(@TempDir Path dir) throws Exception {
    Report written = new Report("end", 20, 2,
        new LinkedHashMap<>(Map.of("subject", Report.counts(concat(range(0, 3), List.of(1L))))),
        Map.of("subject", List.of("a=b", "c:d")), Map.of("subject", List.of("t-1-0")), Map.of("X", 3L));
    written.write(dir.resolve("r"));
    assertEquals(written, Report.read(dir.resolve("r")));
  }
}
