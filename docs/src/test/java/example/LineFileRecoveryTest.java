// snippet: line-file-recovery-test
package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.testkit.Incarnation;
import dev.twophase.testkit.LoggedHandle;
import dev.twophase.testkit.ManualCoordinator;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A check of one's own with the in-process helpers: a crash between the decision and the commit. */
class LineFileRecoveryTest {

  @TempDir Path directory;

  @Test
  void theNextProcessCommitsTheDecidedFileAndDropsTheOpenOne() throws Exception {
    try (ManualCoordinator<LineFileParticipant.Handle, Void> coordinator = new ManualCoordinator<>(
        "orders", "files", process -> new LineFileParticipant(directory, FaultInjector.none(),
            file -> process.track(FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                FileChannel::close)))) {

      Incarnation<LineFileParticipant.Handle, Void> first = coordinator.start();
      LineFileParticipant.Handle decided = first.begin();
      first.write(decided, "a");
      decided = first.preCommit(decided);
      LineFileParticipant.Handle open = first.begin(); // the next checkpoint's, begun before the decision
      first.write(open, "b");
      LoggedHandle<LineFileParticipant.Handle> decidedLogged = first.log(decided); // the decision record
      LoggedHandle<LineFileParticipant.Handle> openLogged = first.log(open);
      first.kill(); // kill -9: its open file is closed by the "operating system", nothing else

      Incarnation<LineFileParticipant.Handle, Void> second = coordinator.newIncarnation();
      LineFileParticipant.Handle toCommit = second.restore(decidedLogged);
      LineFileParticipant.Handle toAbort = second.restore(openLogged);
      assertEquals(CommitOutcome.COMMITTED, second.recoverAndCommit(toCommit));
      assertEquals(AbortOutcome.ABORTED, second.recoverAndAbort(toAbort));
      second.finishRecovery(List.of(toCommit, toAbort));

      assertEquals(List.of("a"), Files.readAllLines(directory.resolve(toCommit.name() + ".txt")));
      try (Stream<Path> files = Files.list(directory)) { // only the published file is left
        assertEquals(List.of(toCommit.name() + ".txt"), files.map(p -> p.getFileName().toString()).toList());
      }
    }
  }
}
// end snippet
