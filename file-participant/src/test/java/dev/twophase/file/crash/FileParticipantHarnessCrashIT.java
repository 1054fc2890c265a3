package dev.twophase.file.crash;

import dev.twophase.file.FilePoints;
import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The file participant under the testkit's public crash harness, as a participant author would
 * test it: every protocol point of the coordinator, and the participant's own points
 * ({@link FilePoints}) at their first and second hits, each crashed in a child JVM and recovered in
 * new ones, judged from the committed part files alone. Partial commits before recovery are allowed:
 * the parts of one transaction become visible one rename at a time. ({@link FileParticipantCrashIT} runs the
 * richer scenarios of two participants with foreign files in their directories.)
 */
class FileParticipantHarnessCrashIT {

  @TempDir Path directory;

  static List<CrashScenario> scenarios() {
    List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
    all.addAll(CrashScenario.atEach(List.of(
        FilePoints.WRITE_AFTER_CREATE_PART,
        FilePoints.PRE_COMMIT_AFTER_FSYNC,
        FilePoints.COMMIT_AFTER_RENAME,
        FilePoints.COMMIT_DIRECTORY_SYNC), 1, 2));
    // Only the first transaction creates the bucket directories, so only its pre-commit syncs a
    // directory (the base) itself.
    all.addAll(CrashScenario.atEach(List.of(FilePoints.PRE_COMMIT_DIRECTORY_SYNC), 1));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void crashAndRecover(CrashScenario scenario) {
    CrashTest.builder(FileCrashSubject.class)
        .workDirectory(directory)
        .records(30) // three checkpoints of ten records, and the one finish() takes
        .checkpointEvery(10)
        // A commit renames its parts one by one: after a crash between two renames, a reader sees
        // some parts of the decided transaction until recovery renames the rest (documented).
        .allowPartialCommitsBeforeRecovery()
        .build()
        .run(scenario);
  }
}
