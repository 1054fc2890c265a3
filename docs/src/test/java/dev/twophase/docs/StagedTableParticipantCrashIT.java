package dev.twophase.docs;

import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The walk-through's participant in child JVMs killed at every protocol point and at its own
 * three points (the middle of the publishing transaction among them), recovered in new JVMs: every
 * row exactly once, nothing left staged.
 */
class StagedTableParticipantCrashIT {

  @TempDir Path directory;

  static List<CrashScenario> scenarios() {
    List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
    all.addAll(CrashScenario.atEach(List.of(
        "staged.preCommit.beforeCommit", "staged.commit.afterCopy", "staged.commit.afterCommit"), 2));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void crashAndRecover(CrashScenario scenario) {
    CrashTest.builder(StagedTableCrashSubject.class)
        .workDirectory(directory)
        .records(40)
        .checkpointEvery(10)
        .build()
        .run(scenario);
  }
}
