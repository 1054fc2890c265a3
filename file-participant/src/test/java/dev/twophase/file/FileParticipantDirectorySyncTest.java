package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.file.internal.EarlyDirectorySync;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory syncs of the participant: the directory of a new part is synced in the background
 * from its creation on, the pre-commit waits for that sync and fails with it, and every directory
 * whose entries changed is synced before the pre-commit, the commit or the abort returns.
 */
class FileParticipantDirectorySyncTest {

  @TempDir Path tmp;

  private final List<Path> synced = new CopyOnWriteArrayList<>();

  private Path base() {
    return tmp.resolve("out");
  }

  @Test
  void theNewPartsDirectoryIsSyncedWhileRecordsAreWrittenAndPreCommitWaitsForIt()
      throws Exception {
    CountDownLatch syncStarted = new CountDownLatch(1);
    CountDownLatch finishSync = new CountDownLatch(1);
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .directorySyncer(
                dir -> {
                  syncStarted.countDown();
                  try {
                    finishSync.await();
                  } catch (InterruptedException e) {
                    throw new IOException(e);
                  }
                  synced.add(dir);
                })
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    files.write(t, "first");
    assertTrue(syncStarted.await(10, TimeUnit.SECONDS), "no sync started with the new part");
    files.write(t, "second");

    AtomicBoolean preCommitted = new AtomicBoolean();
    Thread preCommit =
        new Thread(
            () -> {
              try {
                files.preCommit(t);
                preCommitted.set(true);
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
    preCommit.start();
    preCommit.join(200);
    assertFalse(preCommitted.get(), "pre-commit returned before the directory sync ended");
    finishSync.countDown();
    preCommit.join(TimeUnit.SECONDS.toMillis(10));
    assertTrue(preCommitted.get());
    assertEquals(List.of(base()), synced, "one sync of the part's directory, none again");

    assertEquals(CommitOutcome.COMMITTED, files.commit(t));
    files.close();
  }

  @Test
  void aFailedBackgroundSyncFailsThePreCommitAndTheTransactionCanBeAborted() throws Exception {
    AtomicBoolean fail = new AtomicBoolean(true);
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .directorySyncer(
                dir -> {
                  if (fail.get()) {
                    throw new IOException("injected directory sync failure");
                  }
                  synced.add(dir);
                })
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    files.write(t, "lost with its transaction");
    IOException e = assertThrows(IOException.class, () -> files.preCommit(t));
    assertTrue(e.getMessage().contains("injected"), e.getMessage());

    fail.set(false);
    files.abort(t);
    try (var entries = Files.list(base())) {
      assertEquals(0, entries.count(), "the aborted part is deleted");
    }

    // The participant goes on: the next transaction's part gets its own sync.
    FileTransaction next = files.beginTransaction(context(2));
    files.write(next, "kept");
    files.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, files.commit(next));
    assertTrue(synced.contains(base()));
    files.close();
  }

  @Test
  void everyPartAndNewBucketDirectoryIsSyncedBeforePreCommitReturns() throws Exception {
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .bucketAssigner(record -> record.toString().substring(0, 1))
            .maxPartRecords(2)
            .directorySyncer(synced::add)
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    for (String r : List.of("a1", "a2", "a3", "b1", "b2")) {
      files.write(t, r);
    }
    files.preCommit(t);
    assertTrue(synced.contains(base()), "the base directory holds the new buckets' entries");
    assertTrue(synced.contains(base().resolve("a")), synced.toString());
    assertTrue(synced.contains(base().resolve("b")), synced.toString());
    assertEquals(3, t.parts().size(), "a rolled once, b not: " + t.parts());
    files.close();
  }

  @Test
  void earlySyncRethrowsItsFailureAndStartsNothingOnceClosed() throws Exception {
    Path dir = Files.createDirectories(base());
    try (EarlyDirectorySync sync =
        new EarlyDirectorySync(
            d -> {
              if (d.getFileName().toString().equals("bad")) {
                throw new IOException("injected");
              }
              if (d.getFileName().toString().equals("odd")) {
                throw new IllegalStateException("not an IOException");
              }
              synced.add(d);
            },
            "test-dirsync")) {
      EarlyDirectorySync.await(sync.start(dir), dir);
      assertEquals(List.of(dir), synced);
      Path bad = tmp.resolve("bad");
      IOException e = assertThrows(IOException.class, () -> EarlyDirectorySync.await(sync.start(bad), bad));
      assertEquals("injected", e.getMessage());
      Path odd = tmp.resolve("odd");
      IOException wrapped = assertThrows(IOException.class, () -> EarlyDirectorySync.await(sync.start(odd), odd));
      assertTrue(wrapped.getMessage().contains(odd.toString()), wrapped.getMessage());
      sync.close();
      assertNull(sync.start(dir), "a closed syncer starts nothing: the caller syncs itself");
    }
  }

  @Test
  void requestsForADirectoryWhoseSyncHasNotBegunShareIt() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    try (EarlyDirectorySync sync =
        new EarlyDirectorySync(
            d -> {
              synced.add(d);
              if (d.equals(a)) {
                firstRunning.countDown();
                try {
                  finishFirst.await();
                } catch (InterruptedException e) {
                  throw new IOException(e);
                }
              }
            },
            "test-dirsync")) {
      var first = sync.start(a);
      assertTrue(firstRunning.await(10, TimeUnit.SECONDS));
      var again = sync.start(a); // a's sync has begun: it may miss entries made now, so a new one
      var queued = sync.start(b);
      var joined = sync.start(b); // b's sync has not begun: it will cover this caller's entries
      assertTrue(again != first, "a sync already running must not be shared");
      assertTrue(joined == queued, "a queued sync must be shared");
      finishFirst.countDown();
      EarlyDirectorySync.await(first, a);
      EarlyDirectorySync.await(again, a);
      EarlyDirectorySync.await(joined, b);
      assertEquals(List.of(a, a, b), List.copyOf(synced).subList(0, 3).stream().sorted().toList());
      assertEquals(3, synced.size());
    }
  }
}
