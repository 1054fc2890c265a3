package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static dev.twophase.file.FileParticipantTest.txnName;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes that the file system refuses: a directory that takes no new entries, a bucket path taken
 * by a file, and a file system that is full (a real {@code ENOSPC} from a small tmpfs, hit while
 * writing and while pre-committing buffered data). In each case the failing call says what failed,
 * the transaction can only be aborted (its pre-commit throws), nothing becomes visible, and abort
 * cleans up.
 *
 * <p>Not covered here: a failing {@code fsync} (EIO). Making fsync fail needs a faulty block device
 * (device-mapper's error or flakey targets), which this machine's kernel does not offer; tmpfs
 * fsync never fails.
 */
class FileParticipantWriteFailureTest {

  @TempDir Path tmp;

  Path base() {
    return tmp.resolve("out");
  }

  static String causeChain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c).append(" <- ");
    }
    return sb.toString();
  }

  /** After a failed write: pre-commit refuses, abort removes every in-progress part. */
  static void assertOnlyAbortable(FileParticipant<?> p, FileTransaction t, Path base) throws Exception {
    IOException e = assertThrows(IOException.class, () -> p.preCommit(t));
    assertTrue(e.getMessage().contains("cannot be pre-committed") && e.getMessage().contains(t.name()),
        "pre-commit should say why: " + e.getMessage());
    assertEquals(List.of(), Dirs.committed(base));
    p.abort(t);
    assertEquals(List.of(), Dirs.inProgress(base), "abort must delete the broken transaction's parts");
    assertEquals(List.of(), Dirs.committed(base));
  }

  @Test
  void aDirectoryThatTakesNoNewFileFailsTheFirstWrite() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).build();
    FileTransaction t = p.beginTransaction(context(0));
    IOException e;
    try (AutoCloseable undo = Dirs.makeUnwritable(base())) {
      e = assertThrows(IOException.class, () -> W.write(p, t, "first"));
    }
    assertTrue(e.getMessage().contains(base().toString()) && e.getMessage().contains("can no longer be committed"),
        "the write should name the file and the consequence: " + e.getMessage());
    assertOnlyAbortable(p, t, base());

    // The directory is writable again: the next transaction is fine.
    FileTransaction next = p.beginTransaction(context(1));
    W.write(p, next, "later");
    next = p.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, p.commit(next));
    assertEquals(List.of("later"), Dirs.committedLines(base()));
  }

  @Test
  void aRollThatCannotCreateTheNextPartFailsAndTheEarlierPartsAreAbortedToo() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines()).maxPartRecords(2).build();
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "a");
    W.write(p, t, "b");
    IOException e;
    try (AutoCloseable undo = Dirs.makeUnwritable(base())) {
      e = assertThrows(IOException.class, () -> W.write(p, t, "c")); // needs part 1
    }
    assertTrue(e.getMessage().contains("can no longer be committed"), e.getMessage());
    assertEquals(1, Dirs.inProgress(base()).size());
    assertOnlyAbortable(p, t, base());
  }

  @Test
  void aBucketWhosePathIsAFileFailsTheWriteAndTheTransactionCanOnlyBeAborted() throws Exception {
    FileParticipant<CharSequence> p = FileParticipant.builder(base(), RecordEncoders.lines())
        .bucketAssigner(r -> r.toString().startsWith("x") ? "blocked/inner" : "").build();
    Files.createDirectories(base());
    Files.writeString(base().resolve("blocked"), "a file where the bucket directory would go");
    FileTransaction t = p.beginTransaction(context(0));
    W.write(p, t, "fine");
    IOException e = assertThrows(IOException.class, () -> W.write(p, t, "x-blocked"));
    assertTrue(e.getMessage().contains("blocked") && e.getMessage().contains(t.name()), e.getMessage());
    IOException refused = assertThrows(IOException.class, () -> W.write(p, t, "also fine"));
    assertTrue(refused.getMessage().contains("earlier failed write"), refused.getMessage());
    assertOnlyAbortable(p, t, base());
    assertEquals("a file where the bucket directory would go", Files.readString(base().resolve("blocked")));
  }

  @Test
  void aFullFileSystemFailsTheWriteWithEnospc() throws Exception {
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("small"), "size=256k")) {
      Path base = fs.dir().resolve("out");
      // A small buffer, so that records reach the file while they are written.
      FileParticipant<byte[]> p = FileParticipant.builder(base, RecordEncoders.bytes()).bufferBytes(512).build();
      FileTransaction t = p.beginTransaction(context(0));
      byte[] record = new byte[1000];
      Arrays.fill(record, (byte) 'x');
      IOException failure = null;
      int written = 0;
      for (int i = 0; i < 1000 && failure == null; i++) {
        try {
          W.write(p, t, record);
          written++;
        } catch (IOException e) {
          failure = e;
        }
      }
      assertNotNull(failure, "256 KiB never ran full: the test did not reach the disk-full path");
      assertTrue(written > 100, "the file system was full too early: " + written + " records");
      assertTrue(causeChain(failure).contains("No space left on device"), causeChain(failure));
      assertTrue(failure.getMessage().contains("can no longer be committed"), failure.getMessage());
      assertOnlyAbortable(p, t, base);

      // The space is free again after the abort: the participant goes on.
      FileTransaction next = p.beginTransaction(context(1));
      W.write(p, next, "after\n".getBytes(UTF_8));
      next = p.preCommit(next);
      assertEquals(CommitOutcome.COMMITTED, p.commit(next));
      assertEquals(List.of("after"), Dirs.committedLines(base));
      p.close();
    }
  }

  @Test
  void aFullFileSystemFailsThePreCommitOfBufferedData() throws Exception {
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("small"), "size=256k")) {
      Path base = fs.dir().resolve("out");
      // A buffer bigger than the file system: every write succeeds in memory.
      FileParticipant<byte[]> p = FileParticipant.builder(base, RecordEncoders.bytes()).bufferBytes(1 << 20).build();
      FileTransaction t = p.beginTransaction(context(0));
      byte[] record = new byte[1000];
      for (int i = 0; i < 300; i++) {
        W.write(p, t, record);
      }
      IOException e = assertThrows(IOException.class, () -> p.preCommit(t));
      assertTrue(causeChain(e).contains("No space left on device"), causeChain(e));
      assertEquals(List.of(), Dirs.committed(base));
      // A second attempt must not "succeed" with the part cut short.
      assertThrows(IOException.class, () -> p.preCommit(t));
      p.abort(t);
      assertEquals(List.of(), Dirs.allFiles(base), "abort leaves nothing");
      p.close();
    }
  }

  @Test
  void aFullFileSystemWithNoInodesLeftFailsTheCreationOfAPart() throws Exception {
    try (Tmpfs fs = Tmpfs.mount(tmp.resolve("small"), "size=1m,nr_inodes=3")) {
      Path base = fs.dir().resolve("out"); // one inode for the root, one for out
      FileParticipant<CharSequence> p = FileParticipant.builder(base, RecordEncoders.lines()).maxPartRecords(1).build();
      FileTransaction t = p.beginTransaction(context(0));
      W.write(p, t, "one"); // the third inode
      IOException e = assertThrows(IOException.class, () -> W.write(p, t, "two"));
      assertTrue(causeChain(e).contains("No space left on device"), causeChain(e));
      assertTrue(e.getMessage().contains(".part-" + txnName(0) + "-1"), "names the part it could not create: " + e.getMessage());
      assertOnlyAbortable(p, t, base);
      p.close();
    }
  }
}
