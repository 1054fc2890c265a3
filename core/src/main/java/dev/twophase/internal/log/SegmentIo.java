package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The I/O of a log on its segments: writes (with zeros written ahead of them), truncates and syncs
 * that an interrupt does not break, and directory syncs.
 *
 * <p>{@link FileChannel} is interruptible: an I/O call made by a thread whose interrupt flag is
 * set, or interrupted while it blocks, closes the channel, which every coordinator of the log
 * shares. So every step runs with the caller's interrupt flag held back (cleared before, set again
 * after), and if an interrupt arriving meanwhile closes the channel, the segment's standby
 * descriptor takes over (see {@link Segment}) and the step runs again: a write or truncate on the
 * caller's thread, followed by a sync on the log's retry thread; a sync again on the retry thread,
 * which nobody interrupts ({@code twophase-log-retry <dir>}, a daemon started on demand, ended
 * after 30 s without work or by {@link #shutDown()}).
 *
 * <p>A failed sync is recorded in the log's {@link LogHealth} before the next sync may start, and
 * no later sync runs: after a failed fsync a second one on the same descriptor may report success
 * for pages the kernel dropped.
 */
final class SegmentIo {

  private static final Logger LOG = SegmentedLog.LOG;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024);

  /** How often one step is done again after interrupts closed its channel. */
  private static final int TAKEOVERS = 3;

  /** An I/O step on a segment's channel; may run again on another descriptor. */
  private interface ChannelStep {
    void run(FileChannel channel) throws IOException;
  }

  /** I/O done on the retry thread. */
  private interface RetryCall {
    void run() throws IOException;
  }

  private final Path directory;
  /** The active segment is extended by this many zeros when appends reach its end (0: never). */
  private final long preallocateBytes;
  private final Syncer syncer;
  private final LogHealth health;
  private final LogCounters counters;
  /** Runs syncs again after an interrupt closed their channel, and directory syncs. */
  private final ThreadPoolExecutor retrier;
  /** The log's file system, looked up once (the lookup reads the mount table). */
  private volatile FileStore fileStore;
  /** Set by {@link #shutDown()}, before the log closes its channels: from then on no takeover. */
  private volatile boolean shutDown;

  SegmentIo(
      Path directory, long preallocateBytes, Syncer syncer, LogHealth health, LogCounters counters) {
    this.directory = directory;
    this.preallocateBytes = preallocateBytes;
    this.syncer = syncer;
    this.health = health;
    this.counters = counters;
    this.retrier = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "twophase-log-retry " + directory);
          t.setDaemon(true);
          return t;
        });
  }

  /**
   * Writes {@code buf} at the end of the segment's records. The file is extended ahead of the
   * records, up to the next multiple of {@link #preallocateBytes}, with zeros (as far as they fit:
   * see {@link #zerosAhead}), so that most syncs find the file's size
   * and blocks unchanged and need not write its metadata: on ext4 a sync of an append that grows
   * the file also writes the inode (and, with a journal, commits it). A reader takes zeros after
   * the last record for unused space (see {@link TornTail#zeros()}); a roll and a clean close cut
   * them off, and so does the next open after a crash. Under the append lock (or during open).
   */
  void write(Segment seg, ByteBuffer buf) throws IOException {
    write(seg, buf, preallocateBytes);
  }

  /**
   * Writes {@code buf} at the end of the records of a segment that no longer grows (the seal of a
   * roll), without zeros ahead. Under the append lock.
   */
  void writeLast(Segment seg, ByteBuffer buf) throws IOException {
    write(seg, buf, 0);
  }

  private void write(Segment seg, ByteBuffer buf, long preallocateBytes) throws IOException {
    long end = seg.size + buf.remaining();
    long zeros = end > seg.allocated && preallocateBytes > 0
        ? zerosAhead(end, preallocateBytes, usableSpace())
        : 0;
    if (zeros > 0) {
      long target = end + zeros;
      long from = seg.allocated;
      onChannel(seg, false, ch -> {
        ByteBuffer z = ZEROS.duplicate();
        for (long at = from; at < target; ) {
          z.clear().limit((int) Math.min(z.capacity(), target - at));
          at += ch.write(z, at);
        }
      });
      seg.allocated = target;
    }
    long at = seg.size;
    int from = buf.position();
    onChannel(seg, false, ch -> {
      buf.position(from); // a retry writes the same bytes at the same place again
      for (long pos = at; buf.hasRemaining(); ) {
        pos += ch.write(buf, pos);
      }
    });
    seg.size = end;
    seg.allocated = Math.max(seg.allocated, end);
  }

  /**
   * How many zeros to write after the records that end at {@code end}: up to the next multiple of
   * {@code chunk}, but never more than half of the {@code usable} space of the file system (rounded
   * down to 4 KiB), so that on a nearly full disk the space goes to records, not to zeros, and the
   * log leaves room for others. {@code usable} is -1 if unknown.
   */
  static long zerosAhead(long end, long chunk, long usable) {
    long zeros = (end / chunk + 1) * chunk - end;
    if (usable < 0) {
      return zeros;
    }
    long fits = usable / 2 / 4096 * 4096;
    return Math.max(0, Math.min(zeros, fits));
  }

  /** The space left on the log's file system, or -1 if it cannot be told. */
  private long usableSpace() {
    try {
      FileStore store = fileStore;
      if (store == null) {
        store = Files.getFileStore(directory);
        fileStore = store;
      }
      return store.getUsableSpace();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Cuts the zeros written ahead off the end of {@code seg} (not synced). */
  void trimAllocation(Segment seg) throws IOException {
    if (seg.allocated > seg.size) {
      onChannel(seg, false, ch -> ch.truncate(seg.size));
      seg.allocated = seg.size;
    }
  }

  /** Makes what was written to {@code seg} durable. */
  void force(Segment seg) throws IOException {
    onChannel(seg, true, syncer::force);
    counters.syncs.incrementAndGet();
  }

  /**
   * Syncs the log's directory on the retry thread, which nobody interrupts: the sync opens a
   * channel of its own, and an interrupt would close it and fail the roll, while a second sync on
   * a new descriptor could miss a write-back error of the first (see {@link Segment}). Rolls are
   * rare; the hand-off costs tens of microseconds.
   */
  void syncDirectory() throws IOException {
    onRetryThread(() -> Directories.fsync(directory));
  }

  /**
   * No takeover from now on, and the retry thread ends; returns once it has (it has no work left
   * when the log closes or a failed open gives up). Before the log closes its channels.
   */
  void shutDown() {
    shutDown = true;
    retrier.shutdown();
    boolean interrupted = false;
    try {
      for (;;) {
        try {
          if (!retrier.awaitTermination(10, TimeUnit.SECONDS)) {
            LOG.warn("State log {}: its retry thread did not end within 10 s", directory);
          }
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Runs {@code step} on the segment's channel with this thread's interrupt flag held back (cleared
   * now, set again before returning), so that a flag set earlier does not close the channel. If an
   * interrupt arriving meanwhile closes it (this thread's, or another's while this one used the
   * channel), the segment's standby takes over and the step runs again. The steps are idempotent:
   * writes of the same bytes at the same offsets, a truncate, a sync. A sync runs again on the
   * log's own thread, which nobody interrupts: a second interrupt of this thread during it would
   * need a standby opened before the first sync began, and there is none (see {@link Segment}).
   * Not after {@link #shutDown()}, nor for a sync the standby may not take over; then the step
   * fails as any failed I/O does.
   */
  private void onChannel(Segment seg, boolean sync, ChannelStep step) throws IOException {
    boolean[] interrupted = {Thread.interrupted()};
    try {
      if (attempt(seg, sync, step, TAKEOVERS, sync, interrupted)) {
        // A standby took over. A sync is done again on the retry thread, any other step is
        // followed by a sync there: either way a sync succeeds after the new standby was opened,
        // which may then take over in turn.
        onRetryThread(() -> attempt(seg, true, syncer::force, TAKEOVERS - 1, false, new boolean[1]));
        if (!sync) {
          counters.syncs.incrementAndGet();
        }
      }
    } finally {
      if (interrupted[0]) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Runs {@code step}, and again after each takeover, at most {@code takeovers} times; returns
   * whether the channel was replaced meanwhile. With {@code stopAtTakeover} it returns at the first
   * replacement without running the step again (a sync to be done on the retry thread). Interrupts
   * it holds back go to {@code interrupted}.
   */
  private boolean attempt(Segment seg, boolean sync, ChannelStep step, int takeovers,
      boolean stopAtTakeover, boolean[] interrupted) throws IOException {
    boolean replaced = false;
    for (int retries = 0; ; retries++) {
      FileChannel ch = seg.channel;
      try {
        if (sync) {
          runSync(seg, ch, step);
        } else {
          step.run(ch);
        }
        return replaced;
      } catch (ClosedChannelException e) {
        interrupted[0] |= Thread.interrupted(); // held back: onChannel sets it again
        if (shutDown || retries >= takeovers || ch.isOpen()) {
          throw e;
        }
        Segment.Takeover t = seg.takeOver(ch);
        if (t == Segment.Takeover.NO_STANDBY) {
          throw e;
        }
        if (t == Segment.Takeover.DONE) {
          counters.takeovers.incrementAndGet();
          if (sync) {
            counters.syncTakeovers.incrementAndGet();
          }
          LOG.warn("State log {}: an interrupt closed the channel of segment {} during a {}; "
              + "continuing on a standby descriptor. Do not interrupt threads that append or "
              + "checkpoint", directory, seg.file, sync ? "sync" : "write or truncate");
        }
        replaced = true;
        if (stopAtTakeover) {
          return true;
        }
      }
    }
  }

  /**
   * One sync of {@code seg} on {@code ch}, one at a time per segment. A failure is recorded before
   * the next sync may start: after a failed fsync a second one on the same descriptor may report
   * success for pages the kernel dropped, so that one must not release anybody.
   */
  private void runSync(Segment seg, FileChannel ch, ChannelStep step) throws IOException {
    seg.syncLock.lock();
    try {
      Throwable failed = health.failure();
      if (failed != null) {
        throw new IOException("an earlier write or sync of the log failed", failed);
      }
      long number = seg.beginSync(ch);
      try {
        step.run(ch);
      } catch (ClosedChannelException e) {
        throw e; // not a failure of the sync: done again on a standby, or failed by the caller
      } catch (IOException | RuntimeException e) {
        health.recordFailure(e);
        throw e;
      }
      seg.syncSucceeded(number);
    } finally {
      seg.syncLock.unlock();
    }
  }

  /**
   * Runs {@code call} on the retry thread, which nobody interrupts, and waits for it without
   * letting an interrupt end the wait; the interrupt is set again on this thread before returning.
   */
  private void onRetryThread(RetryCall call) throws IOException {
    Future<?> f = retrier.submit(() -> {
      call.run();
      return null;
    });
    boolean interrupted = false;
    try {
      for (;;) {
        try {
          f.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException iOException) {
        throw iOException;
      }
      if (cause instanceof RuntimeException runtimeException) {
        throw runtimeException;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
