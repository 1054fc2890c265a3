package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static dev.twophase.file.FileParticipantTest.txnName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcome;
import dev.twophase.testing.TestContexts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Symbolic links below the base directory are never followed: a bucket directory (or any directory
 * between it and the base) that is a link, even one created while the participant runs, makes the
 * write, commit or abort that would go through it fail with an error naming the link, and nothing
 * outside the base directory is created, renamed or deleted. The base directory itself may be a
 * link: it is resolved once, when the participant is built.
 */
class FileParticipantSymlinkTest {

  @TempDir Path tmp;

  Path base() {
    return tmp.resolve("out");
  }

  /** A directory outside the base, the target of the links. */
  Path outside() throws IOException {
    return Files.createDirectories(tmp.resolve("elsewhere"));
  }

  FileParticipant<CharSequence> participant(String bucketOfX) {
    return FileParticipant.builder(base(), RecordEncoders.lines())
        .bucketAssigner(r -> r.toString().startsWith("x") ? bucketOfX : "ok")
        .build();
  }

  @Test
  void aBucketDirectoryThatIsALinkIsRefusedAndTheTransactionStaysUsable() throws Exception {
    FileParticipant<CharSequence> p = participant("linked");
    Files.createSymbolicLink(base().resolve("linked"), outside());
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "before");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t, "x-escapes"));
    assertTrue(e.getMessage().contains("'linked'") && e.getMessage().contains("symbolic link")
        && e.getMessage().contains(outside().toString()), e.getMessage());
    assertEquals(List.of(), Dirs.allFiles(outside()), "nothing may be written through the link");

    W.write(p, t, "after");
    FileTransaction done = p.preCommit(t);
    assertEquals(CommitOutcome.COMMITTED, p.commit(done));
    assertEquals(List.of("before", "after"), Dirs.committedLines(base()));
    assertEquals(List.of(), Dirs.allFiles(outside()));
    p.close();
  }

  @Test
  void aLinkAnywhereBetweenTheBaseAndTheBucketIsRefused() throws Exception {
    FileParticipant<CharSequence> p = participant("a/b/c");
    Files.createDirectories(base().resolve("a"));
    Files.createSymbolicLink(base().resolve("a/b"), outside());
    FileTransaction t = p.beginTransaction(context(0));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> W.write(p, t, "x"));
    assertTrue(e.getMessage().contains("'a/b/c'") && e.getMessage().contains(base().resolve("a/b").toString()),
        e.getMessage());
    assertEquals(List.of(), Dirs.allFiles(outside()));
    try (var entries = Files.list(outside())) {
      assertEquals(0, entries.count(), "no directory may be created through the link");
    }
    p.abort(t);
    p.close();
  }

  @Test
  void aLinkPointingInsideTheBaseIsRefusedToo() throws Exception {
    FileParticipant<CharSequence> p = participant("alias");
    Files.createDirectories(base().resolve("real"));
    Files.createSymbolicLink(base().resolve("alias"), base().resolve("real"));
    FileTransaction t = p.beginTransaction(context(0));
    assertThrows(IllegalArgumentException.class, () -> W.write(p, t, "x"));
    assertEquals(List.of(), Dirs.allFiles(base()));
    p.abort(t);
    p.close();
  }

  /**
   * The bucket directory is swapped for a link after the pre-commit: the commit refuses to rename
   * through it (and can be retried once the directory is back), instead of making files visible
   * outside the base directory.
   */
  @Test
  void aCommitDoesNotRenameThroughABucketDirectorySwappedForALink() throws Exception {
    FileParticipant<CharSequence> p = participant("b");
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "x-in-b");
    t = p.preCommit(t);
    Path moved = outside().resolve("b");
    Files.move(base().resolve("b"), moved);
    Files.createSymbolicLink(base().resolve("b"), moved);

    FileTransaction prepared = t;
    IOException e = assertThrows(IOException.class, () -> p.commit(prepared));
    assertTrue(e.getMessage().contains(base().resolve("b").toString()) && e.getMessage().contains("symbolic link"),
        e.getMessage());
    assertEquals(List.of(), Dirs.committed(moved), "renamed through the link");

    Files.delete(base().resolve("b"));
    Files.move(moved, base().resolve("b"));
    assertEquals(CommitOutcome.COMMITTED, p.commit(t));
    assertEquals(List.of("x-in-b"), Dirs.committedLines(base()));
    p.close();
  }

  /** Abort and recovery's abort do not delete through a link either. */
  @Test
  void abortsDoNotDeleteThroughALink() throws Exception {
    FileParticipant<CharSequence> p = participant("b");
    FileTransaction begun = p.beginTransaction(context(0));
    W.write(p, begun, "x-in-b");
    FileTransaction t = p.preCommit(begun);
    Path moved = outside().resolve("b");
    Files.move(base().resolve("b"), moved);
    Files.createSymbolicLink(base().resolve("b"), moved);
    String part = ".part-" + txnName(0) + "-0.inprogress";

    IOException e = assertThrows(IOException.class, () -> p.abort(t));
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    FileParticipant<CharSequence> next = participant("b");
    assertThrows(IOException.class, () -> next.recoverAndAbort(t));
    // The handle logged at begin names no parts: the search by name does not enter the link.
    assertEquals(AbortOutcome.NOT_FOUND, next.recoverAndAbort(begun));
    assertTrue(Files.exists(moved.resolve(part)), "deleted through the link");
    p.close();
    next.close();
  }

  /**
   * The start-up cleanup and recovery's search by name walk the base directory without following
   * links: a file outside that looks like this participant's leftover survives.
   */
  @Test
  void theStartUpCleanupAndTheSearchByNameStayInsideTheBase() throws Exception {
    Path outside = outside();
    String leftover = ".part-" + txnName(3) + "-0.inprogress";
    String committed = "part-" + txnName(4) + "-0";
    Files.writeString(outside.resolve(leftover), "outside\n");
    Files.writeString(outside.resolve(committed), "outside\n");
    Files.createDirectories(base());
    Files.createSymbolicLink(base().resolve("link"), outside);
    FileParticipant<CharSequence> p = participant("b");

    p.finishRecoveringContext(TestContexts.recovery(FileParticipantTest.COORDINATOR, FileParticipantTest.PARTICIPANT,
        FileParticipantTest.EPOCH + 1, List.of(), 5));
    assertTrue(Files.exists(outside.resolve(leftover)), "the cleanup followed the link");
    FileTransaction named4 = new FileTransaction(txnName(4), 0, List.of());
    assertEquals(AbortOutcome.NOT_FOUND, p.recoverAndAbort(named4), "a committed file outside the base counted");
    assertTrue(Files.exists(outside.resolve(committed)));
    p.close();
  }

  /** A base directory that is itself a link is resolved when built, and its leftovers are found. */
  @Test
  void aBaseDirectoryThatIsALinkIsResolvedOnce() throws Exception {
    Path real = Files.createDirectories(tmp.resolve("real-out"));
    Path link = Files.createSymbolicLink(tmp.resolve("link-out"), real);
    FileParticipant<CharSequence> p = FileParticipant.builder(link, RecordEncoders.lines()).build();
    assertEquals(real.toRealPath(), p.baseDirectory());
    FileTransaction lost = p.beginTransaction(context(1));
    W.write(p, lost, "begun after the last decision");
    p.close();

    FileParticipant<CharSequence> after = FileParticipant.builder(link, RecordEncoders.lines()).build();
    after.finishRecoveringContext(TestContexts.recovery(FileParticipantTest.COORDINATOR,
        FileParticipantTest.PARTICIPANT, FileParticipantTest.EPOCH + 1, List.of(), 5));
    assertEquals(List.of(), Dirs.inProgress(real), "the leftover in the linked base directory was not removed");
    after.close();
  }
}
