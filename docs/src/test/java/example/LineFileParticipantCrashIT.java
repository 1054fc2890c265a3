// snippet: line-file-crash-it
package example;

import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LineFileParticipantCrashIT {

  @TempDir Path directory;

  static List<CrashScenario> scenarios() {
    List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
    all.addAll(CrashScenario.atEach(
        List.of(LineFileParticipant.PRE_COMMIT_WRITTEN, LineFileParticipant.COMMIT_RENAMED), 2));
    return all;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void crashAndRecover(CrashScenario scenario) {
    CrashTest.builder(LineFileCrashSubject.class)
        .workDirectory(directory)
        .records(40)         // four checkpoints of ten records, and the one finish() takes
        .checkpointEvery(10)
        .build()
        .run(scenario);
  }
}
// end snippet
