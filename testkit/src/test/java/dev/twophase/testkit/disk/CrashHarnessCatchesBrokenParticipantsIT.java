package dev.twophase.testkit.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ProtocolPoint;
import dev.twophase.testkit.crash.Crash;
import dev.twophase.testkit.crash.CrashFinding;
import dev.twophase.testkit.crash.CrashFinding.Kind;
import dev.twophase.testkit.crash.CrashSubject;
import dev.twophase.testkit.crash.CrashTest;
import dev.twophase.testkit.crash.CrashTestFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves that the crash harness can fail: each test runs it against a {@link DiskParticipant} with
 * one deliberate flaw (or a subject that is broken itself), at a crash that exposes the flaw, and
 * checks that the harness throws a {@link CrashTestFailure} with the findings meant to catch it,
 * and nothing it should not find. {@link DiskParticipantCrashIT} runs the same harness on the
 * participant without a flaw, at every point, and passes.
 */
class CrashHarnessCatchesBrokenParticipantsIT {

  @TempDir Path dir;

  private CrashTestFailure failure(Class<? extends CrashSubject<?>> subject, Crash... crashes) {
    return failure(CrashTest.builder(subject).workDirectory(dir).records(40).checkpointEvery(10).build(), crashes);
  }

  private static CrashTestFailure failure(CrashTest test, Crash... crashes) {
    return assertThrows(CrashTestFailure.class, () -> test.run(crashes),
        "the crash harness did not notice " + test);
  }

  private static void assertKinds(CrashTestFailure f, Kind... expected) {
    assertEquals(Set.of(expected), f.kinds(), f.getMessage());
  }

  /** The example: a commit that publishes half, then crashes, then reports it committed. */
  @Test
  void commitThatIsNotAtomic() {
    CrashTestFailure f = failure(DiskSubject.HalfPublishedCommit.class, Crash.at(DiskParticipant.COMMIT_HALF, 2));
    assertKinds(f, Kind.PARTIAL_COMMIT, Kind.LOST);
    // checkpoint 2 (records 10..19): half visible after the crash, the rest never
    assertTrue(f.getMessage().contains("the transaction of records 10..19 is partly visible"), f.getMessage());
    assertTrue(f.getMessage().contains("records 15..19 are not visible"), f.getMessage());
    assertTrue(f.getMessage().contains("--- child #1 (crash at disk.commit.half:2): CRASHED"), f.getMessage());
    assertTrue(Files.isDirectory(f.scenarioDirectory()), "the scenario directory is kept");
  }

  @Test
  void commitThatIsNotIdempotent() {
    CrashTestFailure f = failure(DiskSubject.AppendThenDelete.class, Crash.at(DiskParticipant.COMMIT_APPENDED, 2));
    assertKinds(f, Kind.DUPLICATED);
    assertTrue(f.getMessage().contains("records 10..19 are visible more than once"), f.getMessage());
  }

  @Test
  void preCommitThatKeepsTheDataInMemory() {
    CrashTestFailure f = failure(DiskSubject.BufferedUntilCommit.class, Crash.at(ProtocolPoint.AFTER_LOG_APPEND, 2));
    assertKinds(f, Kind.LOST);
    assertTrue(f.getMessage().contains("right after child #2 recovered (the application resumes at record 20"), f.getMessage());
  }

  @Test
  void recoveryThatCommitsWhatWasNeverDecided() {
    CrashTestFailure f = failure(DiskSubject.PreparedMeansDecided.class, Crash.at(ProtocolPoint.AFTER_PRE_COMMITS, 2));
    assertKinds(f, Kind.BEYOND_POSITION, Kind.DUPLICATED);
    assertTrue(f.getMessage().contains("records 10..19 are visible, though their checkpoint was never decided"), f.getMessage());
  }

  @Test
  void recoveryThatLeavesLeftovers() {
    CrashTestFailure f = failure(DiskSubject.NoLeftoverCleanup.class, Crash.at(ProtocolPoint.AFTER_PRE_COMMITS, 2));
    assertKinds(f, Kind.LEFT_OPEN);
    CrashFinding finding = f.findings().get(0);
    assertEquals("subject", finding.participant());
    assertEquals(2, finding.child());
  }

  @Test
  void commitThatHangs() {
    CrashTest test = CrashTest.builder(DiskSubject.HangingCommit.class).workDirectory(dir).records(40)
        .checkpointEvery(10).childTimeout(Duration.ofSeconds(20)).build();
    CrashTestFailure f = failure(test, Crash.at(ProtocolPoint.AFTER_COMMITS, 1));
    assertKinds(f, Kind.CHILD_HUNG);
    assertTrue(f.getMessage().contains("threads at the timeout"), f.getMessage());
    assertTrue(f.getMessage().contains("DiskParticipant.commit"), "the thread dump shows where it hangs\n" + f.getMessage());
  }

  @Test
  void subjectThatCannotStart() {
    CrashTestFailure f = failure(DiskSubject.CannotStart.class);
    assertKinds(f, Kind.CHILD_FAILED);
    assertTrue(f.getMessage().contains("the resource is not reachable (on purpose)"), f.getMessage());
  }

  @Test
  void crashPointNeverReached() {
    CrashTestFailure f = failure(DiskSubject.class, Crash.at(ProtocolPoint.BEFORE_PRE_COMMIT, 1000));
    assertKinds(f, Kind.CRASH_NOT_REACHED);
    assertTrue(f.getMessage().contains("BEFORE_PRE_COMMIT was reached 5 time(s)"), f.getMessage());
  }

  @Test
  void subjectThatReadsBackOtherRecords() {
    CrashTestFailure f = failure(DiskSubject.MisreadsRecords.class);
    assertTrue(f.kinds().contains(Kind.UNKNOWN_RECORD), f.getMessage());
  }
}
