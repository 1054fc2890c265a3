package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.file.FileTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two participants in one sink commit together: when the second one's pre-commit fails, the first
 * one's transaction of that checkpoint, already pre-committed, never becomes visible; the job
 * restarts and both end with every record exactly once.
 */
class TwoParticipantsIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  /** Pre-commits of "b" (with records) to let through before failing one. */
  private static final AtomicInteger BEFORE_FAILURE = new AtomicInteger();
  /** The in-progress files of "a" that belonged to the failed checkpoint's transaction. */
  private static final Set<String> A_FILES_OF_FAILED = ConcurrentHashMap.newKeySet();

  @TempDir
  Path tmp;

  @Test
  void aFailedPreCommitInOneParticipantMakesNeitherVisible() throws Exception {
    long n = 40_000;
    BEFORE_FAILURE.set(3);
    A_FILES_OF_FAILED.clear();
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    String aDir = a.toString();
    StreamExecutionEnvironment env = Jobs.env(2, 100, 3, null);
    Jobs.numbers(env, n)
        .map(new Throttle(10)).uid("throttle")
        .sinkTo(TwoPhaseSink.<String>builder("twoparts")
            .participant("a", Participants.files(aDir))
            .participant("b", HookedFiles.factory(b.toString(), (point, t, dir) -> failB(point, t, dir, aDir)))
            .build()).uid("sink");
    env.execute("two-participants");

    assertFalse(A_FILES_OF_FAILED.isEmpty(), "participant a had pre-committed records of the failed checkpoint");
    for (String inProgress : A_FILES_OF_FAILED) {
      String committed = inProgress.substring(1, inProgress.length() - ".inprogress".length());
      assertFalse(Files.exists(a.resolve(committed)), committed + " of the failed checkpoint became visible");
    }
    assertEquals(0, HookedFiles.notClosed(b.toString()), "every participant closed, also after the failure");
    for (Path dir : List.of(a, b)) {
      assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(dir), n), dir.toString());
      assertEquals(List.of(), CommittedFiles.inProgress(dir), dir.toString());
    }
  }

  /** Fails a pre-commit of "b" with records, after noting "a"'s files of the same transaction. */
  private static void failB(String point, FileTransaction t, Path bDir, String aDir) throws IOException {
    if (!point.equals("preCommit") || inProgressOf(bDir, t.name()).isEmpty()
        || BEFORE_FAILURE.getAndDecrement() != 0) {
      return;
    }
    String aName = "twoparts-a-" + t.name().substring("twoparts-b-".length());
    List<String> aFiles = inProgressOf(Path.of(aDir), aName);
    assertTrue(!aFiles.isEmpty(), "a pre-committed " + aName + " before b's pre-commit");
    A_FILES_OF_FAILED.addAll(aFiles);
    throw new IOException("planned pre-commit failure of " + t.name());
  }

  private static List<String> inProgressOf(Path dir, String transaction) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString())
          .filter(f -> f.startsWith(".part-" + transaction + "-") && f.endsWith(".inprogress"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
