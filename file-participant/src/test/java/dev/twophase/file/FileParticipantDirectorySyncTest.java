package dev.twophase.file;

import static dev.twophase.file.FileParticipantTest.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.file.internal.EarlyDirectorySync;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory syncs of the participant: the directory of a new part is synced in the background
 * from its creation on, the pre-commit waits for that sync and fails with it, and every directory
 * whose entries changed is synced before the pre-commit, the commit or the abort returns. The
 * participant's own fault injector ({@link FilePoints}) tells the test when a sync is about to run,
 * holds it back, or fails it.
 */
class FileParticipantDirectorySyncTest {

  @TempDir Path tmp;

  private final List<Path> synced = new CopyOnWriteArrayList<>();
  /** Every point the participant reached, in order. */
  private final List<String> points = new CopyOnWriteArrayList<>();

  private Path base() {
    return tmp.resolve("out");
  }

  /** Records every point, then runs {@code then}. */
  private FaultInjector recording(FaultInjector then) {
    return point -> {
      points.add(point);
      then.reached(point);
    };
  }

  private long hits(String point) {
    return points.stream().filter(point::equals).count();
  }

  @Test
  void theNewPartsDirectoryIsSyncedWhileRecordsAreWrittenAndPreCommitWaitsForIt()
      throws Exception {
    CountDownLatch syncStarted = new CountDownLatch(1);
    CountDownLatch finishSync = new CountDownLatch(1);
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .faultInjector(recording(point -> {
              if (!point.equals(FilePoints.BACKGROUND_DIRECTORY_SYNC)) {
                return;
              }
              try (var entries = Files.list(base())) {
                assertTrue(entries.anyMatch(e -> e.getFileName().toString().startsWith(".part-")),
                    "the sync began before the part existed");
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              syncStarted.countDown();
              try {
                finishSync.await();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            }))
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    W.write(files, t, "first");
    assertTrue(syncStarted.await(10, TimeUnit.SECONDS), "no sync started with the new part");
    W.write(files, t, "second");

    AtomicBoolean preCommitted = new AtomicBoolean();
    AtomicReference<FileTransaction> committable = new AtomicReference<>();
    Thread preCommit =
        new Thread(
            () -> {
              try {
                committable.set(files.preCommit(t));
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
    assertEquals(1, hits(FilePoints.BACKGROUND_DIRECTORY_SYNC), points.toString());
    assertEquals(0, hits(FilePoints.PRE_COMMIT_DIRECTORY_SYNC), "one sync of the part's directory, none again: " + points);

    assertEquals(CommitOutcome.COMMITTED, files.commit(committable.get()));
    files.close();
  }

  @Test
  void aFailedBackgroundSyncFailsThePreCommitAndTheTransactionCanBeAborted() throws Exception {
    AtomicBoolean fail = new AtomicBoolean(true);
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .faultInjector(recording(point -> {
              if (point.equals(FilePoints.BACKGROUND_DIRECTORY_SYNC) && fail.get()) {
                throw new UncheckedIOException(new IOException("injected directory sync failure"));
              }
            }))
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    W.write(files, t, "lost with its transaction");
    IOException e = assertThrows(IOException.class, () -> files.preCommit(t));
    assertTrue(e.getMessage().contains("injected"), e.getMessage());

    fail.set(false);
    files.abort(t);
    try (var entries = Files.list(base())) {
      assertEquals(0, entries.count(), "the aborted part is deleted");
    }

    // The participant goes on: the next transaction's part gets its own sync.
    FileTransaction next = files.beginTransaction(context(2));
    W.write(files, next, "kept");
    next = files.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, files.commit(next));
    assertEquals(2, hits(FilePoints.BACKGROUND_DIRECTORY_SYNC), points.toString());
    files.close();
  }

  @Test
  void everyPartAndNewBucketDirectoryIsSyncedBeforePreCommitReturns() throws Exception {
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .bucketAssigner(record -> record.toString().substring(0, 1))
            .maxPartRecords(2)
            .faultInjector(recording(FaultInjector.none()))
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    for (String r : List.of("a1", "a2", "a3", "b1", "b2")) {
      W.write(files, t, r);
    }
    t = files.preCommit(t);
    assertEquals(3, t.parts().size(), "a rolled once, b not: " + t.parts());
    // A background sync per new part (a, a again after the roll unless it joined the first one
    // while that was still queued, b), and the base directory, which gained the entries a and b
    // but holds no part, synced by the pre-commit itself.
    long background = hits(FilePoints.BACKGROUND_DIRECTORY_SYNC);
    assertTrue(background == 2 || background == 3, points.toString());
    assertEquals(1, hits(FilePoints.PRE_COMMIT_DIRECTORY_SYNC), points.toString());
    assertEquals(FilePoints.PRE_COMMIT_DIRECTORY_SYNC, points.get(points.size() - 1),
        "the pre-commit's own sync comes after every part was fsynced: " + points);
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

  /**
   * A sync the background thread has not begun when the pre-commit needs it is run by the
   * pre-commit itself, once: the pre-commit does not wait for the thread to be scheduled.
   */
  @Test
  void aSyncTheBackgroundThreadHasNotBegunIsRunByTheWaiterOnce() throws Exception {
    CountDownLatch blockerRunning = new CountDownLatch(1);
    CountDownLatch releaseBlocker = new CountDownLatch(1);
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    List<String> syncedBy = new CopyOnWriteArrayList<>();
    try (EarlyDirectorySync sync =
        new EarlyDirectorySync(
            d -> {
              syncedBy.add(d.getFileName() + " by " + Thread.currentThread().getName());
              if (d.equals(a)) {
                blockerRunning.countDown();
                try {
                  releaseBlocker.await();
                } catch (InterruptedException e) {
                  throw new IOException(e);
                }
              }
            },
            "test-dirsync")) {
      var blocker = sync.start(a); // occupies the background thread
      assertTrue(blockerRunning.await(10, TimeUnit.SECONDS));
      var queued = sync.start(b);
      sync.awaitOrRun(queued, b); // returns although the background thread is still busy
      assertTrue(queued.isDone());
      String me = Thread.currentThread().getName();
      assertEquals(List.of("a by test-dirsync", "b by " + me), syncedBy);
      releaseBlocker.countDown();
      EarlyDirectorySync.await(blocker, a);
      // The background thread skips the sync it no longer owns: a sync queued after it runs next.
      var after = sync.start(a);
      EarlyDirectorySync.await(after, a);
      assertEquals(List.of("a by test-dirsync", "b by " + me, "a by test-dirsync"), syncedBy);
    }
  }

  /**
   * Bucket "" first (its part's sync of the base directory may end at once), then bucket "a",
   * which creates base/a: the base directory gained an entry after its background sync, so the
   * pre-commit must sync it again; bucket a's own part is covered by its background sync.
   */
  @Test
  void aDirectoryThatGainsAnEntryAfterItsBackgroundSyncIsSyncedAgain() throws Exception {
    CountDownLatch firstSyncDone = new CountDownLatch(1);
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .bucketAssigner(record -> record.toString().startsWith("a") ? "a" : "")
            .faultInjector(recording(point -> {
              if (point.equals(FilePoints.BACKGROUND_DIRECTORY_SYNC)) {
                firstSyncDone.countDown(); // (the sync itself follows at once)
              }
            }))
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    W.write(files, t, "in the base directory");
    // Let the base directory's background sync begin before bucket "a" is created.
    assertTrue(firstSyncDone.await(10, TimeUnit.SECONDS));
    W.write(files, t, "a record for bucket a");
    files.preCommit(t);
    assertEquals(2, hits(FilePoints.BACKGROUND_DIRECTORY_SYNC), points.toString());
    assertEquals(1, hits(FilePoints.PRE_COMMIT_DIRECTORY_SYNC),
        "base/a was never made durable in the base directory: " + points);
    files.close();
  }

  /**
   * Part 0's background sync fails, the part rolls, part 1's sync of the same directory succeeds:
   * the pre-commit still fails, since the later sync proves nothing about the earlier entry.
   */
  @Test
  void anEarlierFailedSyncIsNotHiddenByALaterOneOfTheSameDirectory() throws Exception {
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .maxPartRecords(1)
            .faultInjector(point -> {
              if (point.equals(FilePoints.BACKGROUND_DIRECTORY_SYNC) && calls.incrementAndGet() == 1) {
                throw new UncheckedIOException(new IOException("injected failure of the first directory sync"));
              }
            })
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    W.write(files, t, "part 0");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (calls.get() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    W.write(files, t, "part 1"); // rolls: a new part, a new sync of the same directory
    IOException e = assertThrows(IOException.class, () -> files.preCommit(t));
    assertTrue(e.getMessage().contains("injected"), e.getMessage());
    assertEquals(2, Dirs.inProgress(base()).size());
    files.abort(t);
    assertEquals(0, Dirs.inProgress(base()).size(), "abort of the begun handle deletes the parts too");
    files.close();
  }
}
