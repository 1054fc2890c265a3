package dev.twophase.docs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testkit.crash.Crash;
import dev.twophase.testkit.crash.CrashFinding;
import dev.twophase.testkit.crash.CrashTest;
import dev.twophase.testkit.crash.CrashTestFailure;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mistake writing-a-participant.md warns about is caught: a commit that is not atomic duplicates rows. */
class NonAtomicCommitIT {

  @TempDir Path directory;

  @Test
  void aCommitInAutoCommitModeDuplicatesRowsAfterACrashInItsMiddle() {
    CrashTestFailure failure = assertThrows(CrashTestFailure.class, () ->
        CrashTest.builder(NonAtomicCommitSubject.class)
            .workDirectory(directory)
            .records(40)
            .checkpointEvery(10)
            .build()
            .run(Crash.at("staged.commit.afterCopy", 2)));
    assertTrue(failure.kinds().contains(CrashFinding.Kind.DUPLICATED), failure.getMessage());
  }
}
