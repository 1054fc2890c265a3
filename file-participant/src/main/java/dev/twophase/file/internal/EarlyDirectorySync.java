package dev.twophase.file.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.annotation.Internal;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Syncs a directory on a background thread as soon as a part file has been created in it, so that
 * the part's name is durable by the time its transaction pre-commits, without the pre-commit
 * waiting for a directory sync of its own.
 *
 * <p>Why: a pre-commit must make both the part's content and its in-progress name durable before
 * the coordinator's decision. Done one after the other, the two syncs put two device flushes on
 * the checkpoint's critical path. The name, though, exists from the part's first record on; syncing
 * its directory then overlaps that flush with the writing of the records (page-cache writes, which
 * leave the device idle), and the pre-commit only collects the result. A sync covers every entry
 * created before it starts, so a sync started after the part's creation is enough, and the latest
 * one started in a directory covers every earlier part there. For the same reason, requests for a
 * directory whose sync is queued and has not begun share it (parts rolled in quick succession).
 *
 * <p>Commits sync their directory themselves: routed through this thread, a commit that its
 * caller waits for took one more thread hand-off (70-300 us more per checkpoint on a 2-CPU VM),
 * and sharing that flush with the next part's did not measurably raise throughput.
 *
 * <p>One thread at most, started on demand and ended after 30 s without work; daemon, so that a
 * participant that is never closed does not keep the JVM alive. After {@link #close()},
 * {@link #start} returns {@code null} and the caller syncs itself.
 */
@Internal
public final class EarlyDirectorySync implements AutoCloseable {

  /** Syncs one directory: {@link Fsync#directory}, after the participant's fault injector. */
  @FunctionalInterface
  public interface DirectorySyncer {
    void sync(Path dir) throws IOException;
  }

  private final DirectorySyncer syncer;
  private final ThreadPoolExecutor executor;
  /** Syncs submitted and not begun, by directory. Guarded by itself. */
  @GuardedBy("queued")
  private final Map<Path, CompletableFuture<Void>> queued = new HashMap<>();

  public EarlyDirectorySync(DirectorySyncer syncer, String threadName) {
    this.syncer = syncer;
    this.executor =
        new ThreadPoolExecutor(
            0,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts a sync of {@code dir}, or joins one of {@code dir} that is queued and has not begun yet
   * (it will cover every entry made before it begins, this caller's included); {@code null} if
   * none can be started (sync it yourself).
   */
  public Future<Void> start(Path dir) {
    synchronized (queued) {
      CompletableFuture<Void> waiting = queued.get(dir);
      if (waiting != null) {
        return waiting;
      }
      CompletableFuture<Void> sync = new CompletableFuture<>();
      try {
        executor.execute(() -> run(dir, sync));
      } catch (RejectedExecutionException closed) {
        return null;
      }
      queued.put(dir, sync);
      return sync;
    }
  }

  private void run(Path dir, CompletableFuture<Void> sync) {
    synchronized (queued) {
      // From now on a new request needs a new sync. Whoever takes it out of the queue runs it: this
      // thread, or a pre-commit that needed it before this thread got to it (awaitOrRun).
      if (!queued.remove(dir, sync)) {
        return;
      }
    }
    sync(dir, sync);
  }

  private void sync(Path dir, CompletableFuture<Void> sync) {
    try {
      syncer.sync(dir);
      sync.complete(null);
    } catch (Throwable e) {
      sync.completeExceptionally(e);
    }
  }

  /**
   * Waits for a sync started by {@link #start} and rethrows its failure; if the background thread
   * has not begun it yet, runs it on the calling thread instead of waiting for that thread to be
   * scheduled (on a busy machine a thread's wake-up can take milliseconds). Either way it covers
   * every entry made before it began.
   *
   * @throws IOException the sync's own failure, or {@link InterruptedIOException} if the waiting
   *     thread is interrupted (the sync goes on; its outcome is then unknown to the caller)
   */
  public void awaitOrRun(Future<Void> sync, Path dir) throws IOException {
    boolean mine;
    synchronized (queued) {
      mine = queued.remove(dir, sync);
    }
    if (mine) {
      sync(dir, (CompletableFuture<Void>) sync);
    }
    await(sync, dir);
  }

  /**
   * Waits for a sync started by {@link #start} and rethrows its failure.
   *
   * @throws IOException the sync's own failure, or {@link InterruptedIOException} if the waiting
   *     thread is interrupted (the sync goes on; its outcome is then unknown to the caller)
   */
  public static void await(Future<Void> sync, Path dir) throws IOException {
    try {
      sync.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException iOException) {
        throw iOException;
      }
      throw new IOException("syncing directory " + dir + " failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting for the sync of directory " + dir);
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  /** Lets started syncs finish and starts no more. */
  @Override
  public void close() {
    executor.shutdown();
  }
}
