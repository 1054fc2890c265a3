package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static dev.twophase.file.FileParticipantTest.txnName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures injected at the participant's own points ({@link FilePoints}) by throwing, and an
 * {@code Error} from an encoder: the operation fails, nothing is reported as done that is not,
 * the transaction can be aborted or the commit retried, and no file stays open.
 */
class FileParticipantFaultTest {

  @TempDir Path tmp;

  Path base() {
    return tmp.resolve("out");
  }

  /** Throws {@code failure} at the {@code hit}-th time {@code point} is reached, once. */
  static FaultInjector failAt(String point, int hit, RuntimeException failure) {
    AtomicInteger hits = new AtomicInteger();
    return reached -> {
      if (reached.equals(point) && hits.incrementAndGet() == hit) {
        throw failure;
      }
    };
  }

  /**
   * The part files under {@code dir} this process has open (Linux: /proc/self/fd), or null
   * elsewhere. (Directories are left out: the background thread opens one briefly to sync it.)
   */
  static List<Path> openFilesUnder(Path dir) throws IOException {
    Path fds = Path.of("/proc/self/fd");
    if (!Files.isDirectory(fds)) {
      return null;
    }
    List<Path> open = new ArrayList<>();
    try (Stream<Path> list = Files.list(fds)) {
      for (Path fd : list.toList()) {
        try {
          Path target = Files.readSymbolicLink(fd);
          String name = target.getFileName() == null ? "" : target.getFileName().toString();
          if (target.startsWith(dir) && (name.startsWith(".part-") || name.startsWith("part-"))) {
            open.add(target);
          }
        } catch (IOException closedMeanwhile) {
          // the fd of the listing itself, or one closed while listing
        }
      }
    }
    return open;
  }

  static void assertNothingOpenUnder(Path dir) throws IOException {
    List<Path> open = openFilesUnder(dir);
    if (open != null) {
      assertEquals(List.of(), open, "file descriptors left open");
    }
  }

  @Test
  void aFailureRightAfterAPartIsCreatedFailsTheWriteAndAbortLeavesNothingOpenOrOnDisk() throws Exception {
    IllegalStateException injected = new IllegalStateException("injected after the part was created");
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(2)
        .faultInjector(failAt(FilePoints.WRITE_AFTER_CREATE_PART, 2, injected))
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "a");
    W.write(p, t, "b");
    IOException e = assertThrows(IOException.class, () -> W.write(p, t, "c")); // part 1 is created
    assertSame(injected, e.getCause());
    assertTrue(e.getMessage().contains("can no longer be committed"), e.getMessage());
    assertEquals(2, Dirs.inProgress(base()).size());
    assertThrows(IOException.class, () -> p.preCommit(t));
    p.abort(t);
    assertEquals(List.of(), Dirs.allFiles(base()));
    assertNothingOpenUnder(base());
    p.close();
  }

  @Test
  void aFailureAfterThePreCommitsFsyncFailsItForGoodAndAbortCleansUp() throws Exception {
    IllegalStateException injected = new IllegalStateException("injected after the fsync");
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .faultInjector(failAt(FilePoints.PRE_COMMIT_AFTER_FSYNC, 1, injected))
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    assertSame(injected, assertThrows(IllegalStateException.class, () -> p.preCommit(t)));
    IOException again = assertThrows(IOException.class, () -> p.preCommit(t));
    assertTrue(again.getMessage().contains("cannot be pre-committed"), again.getMessage());
    p.abort(t);
    assertEquals(List.of(), Dirs.allFiles(base()));
    assertNothingOpenUnder(base());
    p.close();
  }

  /** A commit that fails between two renames is retried and finishes the job, exactly once. */
  @Test
  void aCommitThatFailsBetweenTwoRenamesIsRetriedToTheEnd() throws Exception {
    IllegalStateException injected = new IllegalStateException("injected between two renames");
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .maxPartRecords(1)
        .bucketAssigner(r -> r.toString().startsWith("b") ? "b" : "")
        .faultInjector(failAt(FilePoints.COMMIT_AFTER_RENAME, 2, injected))
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    for (String r : List.of("a0", "b1", "a2", "b3")) {
      W.write(p, t, r);
    }
    FileTransaction prepared = p.preCommit(t);
    assertSame(injected, assertThrows(IllegalStateException.class, () -> p.commit(prepared)));
    assertEquals(2, Dirs.committed(base()).size(), "two parts renamed before the failure");
    assertEquals(2, Dirs.inProgress(base()).size());

    assertEquals(CommitOutcome.COMMITTED, p.commit(prepared));
    assertEquals(CommitOutcome.ALREADY_COMMITTED, p.commit(prepared));
    String n = txnName(0);
    assertEquals(List.of("b/part-" + n + "-1", "b/part-" + n + "-3", "part-" + n + "-0", "part-" + n + "-2"),
        Dirs.allFiles(base()));
    p.close();
  }

  /**
   * A failed directory sync of a commit is a failed commit, and the retry, which finds the part
   * already renamed, still syncs its directory before it reports the commit done: the rename of
   * the failed attempt may not be durable.
   */
  @Test
  void aFailedDirectorySyncOfACommitFailsItAndTheRetrySyncsTheDirectory() throws Exception {
    IllegalStateException injected = new IllegalStateException("injected directory sync failure");
    FaultInjector failFirst = failAt(FilePoints.COMMIT_DIRECTORY_SYNC, 1, injected);
    AtomicInteger syncs = new AtomicInteger();
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .faultInjector(point -> {
          if (point.equals(FilePoints.COMMIT_DIRECTORY_SYNC)) {
            syncs.incrementAndGet();
          }
          failFirst.reached(point);
        })
        .build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x");
    FileTransaction prepared = p.preCommit(t);
    assertSame(injected, assertThrows(IllegalStateException.class, () -> p.commit(prepared)));
    assertEquals(CommitOutcome.ALREADY_COMMITTED, p.commit(prepared));
    assertEquals(2, syncs.get(), "the retry reported the commit done without syncing the renamed part's directory");
    p.close();
  }

  /** An Error from an encoder is passed on as it is, and the record is rewound like any failure. */
  @Test
  void anErrorFromAnEncoderLeavesTheTransactionUsable() throws Exception {
    StackOverflowError error = new StackOverflowError("an encoder recursed too deep");
    RecordEncoder<String> encoder = (r, out) -> {
      out.write(r.getBytes(StandardCharsets.UTF_8));
      if (r.equals("deep")) {
        throw error;
      }
      out.write('\n');
    };
    FileParticipant<String> p = FileParticipant.builder(base(), encoder).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "first"); // creates the part
    assertSame(error, assertThrows(StackOverflowError.class, () -> W.write(p, t, "deep")));
    W.write(p, t, "second");
    FileTransaction prepared = p.preCommit(t);
    assertEquals(CommitOutcome.COMMITTED, p.commit(prepared));
    assertEquals(List.of("first", "second"), Dirs.committedLines(base()));
    p.close();
  }

  /** A part whose first record fails to encode never exists on disk. */
  @Test
  void aFirstRecordThatCannotBeEncodedCreatesNoPart() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).build();
    FileTransaction t = p.beginTransaction(context(0));
    assertThrows(IllegalArgumentException.class, () -> W.write(p, t, "two\nlines"));
    assertEquals(List.of(), Dirs.allFiles(base()));
    FileTransaction prepared = p.preCommit(t);
    assertEquals(List.of(), prepared.parts());
    assertEquals(CommitOutcome.COMMITTED, p.commit(prepared));
    assertEquals(List.of(), Dirs.allFiles(base()));
    assertNotNull(p.baseDirectory());
    p.close();
  }
}
