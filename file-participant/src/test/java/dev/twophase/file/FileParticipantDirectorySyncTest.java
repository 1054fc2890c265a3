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
                  if (synced.isEmpty()) { // the part's background sync (later: the commit's)
                    try (var entries = Files.list(dir)) {
                      assertTrue(
                          entries.anyMatch(e -> e.getFileName().toString().startsWith(".part-")),
                          "the sync began before the part existed");
                    }
                  }
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
    assertEquals(List.of(base()), synced, "one sync of the part's directory, none again");

    assertEquals(CommitOutcome.COMMITTED, files.commit(committable.get()));
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
      W.write(files, t, r);
    }
    t = files.preCommit(t);
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

  /**
   * Bucket "" first (its part's sync of the base directory may end at once), then bucket "a",
   * which creates base/a: the base directory gained an entry after its background sync, so the
   * pre-commit must sync it again. Each sync records what the directory held when it ran.
   */
  @Test
  void aDirectoryThatGainsAnEntryAfterItsBackgroundSyncIsSyncedAgain() throws Exception {
    List<Map.Entry<Path, List<String>>> syncs = new CopyOnWriteArrayList<>();
    FileParticipant<CharSequence> files =
        FileParticipant.builder(base(), RecordEncoders.lines())
            .bucketAssigner(record -> record.toString().startsWith("a") ? "a" : "")
            .directorySyncer(
                dir -> {
                  try (var entries = Files.list(dir)) {
                    syncs.add(Map.entry(dir, entries.map(e -> e.getFileName().toString()).toList()));
                  }
                })
            .build();
    FileTransaction t = files.beginTransaction(context(1));
    W.write(files, t, "in the base directory");
    // Let the base directory's background sync run before bucket "a" is created.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (syncs.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertEquals(1, syncs.size(), syncs.toString());
    W.write(files, t, "a record for bucket a");
    t = files.preCommit(t);
    boolean baseSyncedWithA =
        syncs.stream().anyMatch(x -> x.getKey().equals(base()) && x.getValue().contains("a"));
    assertTrue(baseSyncedWithA, "base/a was never made durable in the base directory: " + syncs);
    boolean aSyncedWithPart =
        syncs.stream()
            .anyMatch(
                x -> x.getKey().equals(base().resolve("a"))
                    && x.getValue().stream().anyMatch(n -> n.startsWith(".part-")));
    assertTrue(aSyncedWithPart, "bucket a's part name was never synced: " + syncs);
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
            .directorySyncer(
                dir -> {
                  if (calls.incrementAndGet() == 1) {
                    throw new IOException("injected failure of the first directory sync");
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
