package dev.twophase.internal.log;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.ProtocolPoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;

/**
 * The append path of a log: records staged under the append lock, written and synced by the
 * leader of a group commit, rolled when the active segment is due.
 *
 * <h2>Concurrency</h2>
 * Appends encode their record into a staging buffer under the append lock and take a sequence
 * number; then, outside it, they wait for durability in {@link GroupSync}: if a sync already
 * covered their sequence number they return; if no sync runs, they lead: they take the append
 * lock briefly to write everything staged in one {@code write}, then sync; otherwise they park
 * until a leader releases them or hands them the lead. A lone appender pays one write and one
 * sync on its own thread, and concurrent appenders share syncs. Rolling to a new segment (and
 * compaction) runs under the append lock. Order: leadership (or {@code runExclusive}) before the
 * append lock, the append lock before GroupSync's monitor; nobody waits for leadership while
 * holding the append lock.
 *
 * <p>After a failed write or sync the outcome of the appends involved is unknown; the log turns
 * unusable ({@link LogHealth}) and every later append fails fast. A write or sync whose channel an
 * interrupt closed did not fail: {@link SegmentIo} does it again on a standby descriptor.
 *
 * <p>The {@link FaultInjector} is told {@link ProtocolPoint#DURING_LOG_APPEND} whenever a sync
 * that makes an append durable is next, with every record written: after the leader's write, and
 * when a roll is about to sync the active segment while an append waits for its sync. Once per
 * such sync, not per record; not for completion marks, which nobody waits for.
 */
final class AppendPath {

  private static final Logger LOG = SegmentedLog.LOG;
  private static final int INITIAL_BUFFER = 64 * 1024;

  private final Path directory;
  private final long epoch;
  private final LogIndex index;
  private final SegmentIo io;
  private final Compactor compactor;
  private final LogHealth health;
  private final GroupSync sync;
  private final LogCounters counters;
  private final FaultInjector faults;

  private final ReentrantLock appendLock = new ReentrantLock();
  @GuardedBy("appendLock") private final CRC32C crc = new CRC32C();
  /** Where a record is encoded before it is staged (append lock). */
  @GuardedBy("appendLock")
  private ByteBuffer buffer = ByteBuffer.allocateDirect(INITIAL_BUFFER);
  /**
   * Records appended but not yet written to the active segment (append lock). The group's leader
   * writes them all with one system call before its sync, so appenders only copy bytes while
   * holding the append lock.
   */
  @GuardedBy("appendLock")
  private ByteBuffer staged = ByteBuffer.allocateDirect(INITIAL_BUFFER);
  private volatile Segment active;
  @GuardedBy("appendLock") private long writtenSeq; // records staged since open
  /** The sequence number of the last STATE record staged (append lock). */
  @GuardedBy("appendLock")
  private long lastStateSeq;

  AppendPath(Path directory, long epoch, LogIndex index, Segment active, SegmentIo io,
      Compactor compactor, LogHealth health, GroupSync sync, LogCounters counters,
      FaultInjector faults) {
    this.directory = directory;
    this.epoch = epoch;
    this.index = index;
    this.active = active;
    this.io = io;
    this.compactor = compactor;
    this.health = health;
    this.sync = sync;
    this.counters = counters;
    this.faults = faults;
  }

  /** The entry of {@code coordinatorId}, created empty if the log holds nothing for it. */
  CoordinatorEntry entry(String coordinatorId) {
    appendLock.lock();
    try {
      health.checkOpen();
      return index.entry(coordinatorId);
    } finally {
      appendLock.unlock();
    }
  }

  /** The active segment (its channels are closed by the log's close). */
  Segment active() {
    return active;
  }

  /**
   * Appends a STATE record for {@code entry} and returns once it is durable.
   *
   * @throws IllegalArgumentException if {@code checkpointId} is below the entry's last state
   */
  void appendState(CoordinatorEntry entry, long checkpointId, byte[] payload) {
    byte[] owned = payload.clone();
    int size = LogFormat.stateRecordSize(entry.idBytes().length, owned.length);
    long seq;
    appendLock.lock();
    try {
      health.checkWritable(entry, checkpointId);
      long last = entry.lastStateCheckpointId();
      if (checkpointId < last) {
        throw new IllegalArgumentException(
            "checkpointId "
                + checkpointId
                + " is lower than the last one appended for coordinator '"
                + entry.coordinatorId()
                + "', "
                + last
                + ": checkpoint ids never decrease");
      }
      ByteBuffer buf = buffer(size);
      LogFormat.putState(buf, crc, entry.idBytes(), checkpointId, epoch, owned);
      buf.flip();
      try {
        stage(buf);
      } catch (IOException e) {
        throw health.fail(e, entry, checkpointId, "write");
      }
      entry.setState(checkpointId, epoch, owned);
      LogCounters.add(counters.stateAppends, 1);
      LogCounters.add(counters.appendedBytes, size);
      seq = recordWritten(entry, checkpointId, true);
    } finally {
      appendLock.unlock();
    }
    awaitDurable(seq, entry, checkpointId);
  }

  /** Appends a COMPLETED record for {@code entry} if it raises its mark. Not synced. */
  void appendCompletion(CoordinatorEntry entry, long checkpointId) {
    appendLock.lock();
    try {
      health.checkWritable(entry, checkpointId);
      if (checkpointId <= entry.lastCompletedCheckpointId()) {
        return; // adds nothing: the highest mark wins
      }
      int size = LogFormat.completedRecordSize(entry.idBytes().length);
      ByteBuffer buf = buffer(size);
      LogFormat.putCompleted(buf, crc, entry.idBytes(), checkpointId, epoch);
      buf.flip();
      try {
        // Written now (not synced), so that readers and a later crash see it in order.
        stage(buf);
        writeStaged();
      } catch (IOException e) {
        throw health.fail(e, entry, checkpointId, "write of a completion mark");
      }
      entry.complete(checkpointId, epoch);
      LogCounters.add(counters.completionMarks, 1);
      LogCounters.add(counters.appendedBytes, size);
      recordWritten(entry, checkpointId, false);
    } finally {
      appendLock.unlock();
    }
  }

  /** Rolls to a new segment holding only the live state now, and deletes the older ones. */
  void compact() {
    appendLock.lock();
    try {
      health.checkWritable(null, -1);
      try {
        roll();
      } catch (IOException e) {
        throw health.fail(e, null, -1, "compaction");
      }
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Rolls if {@code now} or the active segment is due (see {@link Compactor#due}). At open, before
   * publishing.
   */
  void maybeRoll(boolean now) throws IOException {
    appendLock.lock();
    try {
      if (now) {
        roll();
      } else {
        rollIfDue();
      }
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Syncs what was written and staged (so that appends waiting for their sync return normally),
   * cuts the zeros written ahead off the active segment, then runs {@code release} (which closes
   * the channels), all while no sync runs and under the append lock.
   */
  void close(Runnable release) {
    // Lock order as a leader's: no sync running first, then the append lock.
    sync.runExclusive(() -> {
      appendLock.lock();
      try {
        Segment seg = active;
        long target = -1;
        if (health.failure() == null && (staged.position() > 0 || sync.durable() < writtenSeq)) {
          try {
            writeStaged();
            io.force(seg);
            target = writtenSeq;
          } catch (IOException e) {
            health.recordFailure(e);
            LOG.warn("State log {}: sync at close failed", directory, e);
          }
        }
        if (health.failure() == null) {
          try {
            io.trimAllocation(seg); // not synced: if it is lost, the next open cuts the zeros
          } catch (IOException e) {
            LOG.debug("State log {}: trimming the active segment at close failed", directory, e);
          }
        }
        return target;
      } finally {
        try {
          release.run();
        } finally {
          appendLock.unlock();
        }
      }
    });
  }

  /** Under the append lock, after a record was staged: numbers it and rolls if due. */
  @GuardedBy("appendLock")
  private long recordWritten(CoordinatorEntry entry, long checkpointId, boolean state) {
    long seq = writtenSeq + 1;
    writtenSeq = seq;
    if (state) {
      lastStateSeq = seq;
    }
    try {
      rollIfDue();
    } catch (IOException e) {
      throw health.fail(e, entry, checkpointId, "compaction");
    }
    return seq;
  }

  /** Waits until record {@code seq} is durable: see {@link GroupSync}. */
  private void awaitDurable(long seq, CoordinatorEntry entry, long checkpointId) {
    try {
      sync.await(seq, () -> syncAsLeader(entry, checkpointId));
    } catch (IOException e) {
      throw health.fail(e, entry, checkpointId, "sync");
    }
  }

  /** Run by the elected leader only; returns the sequence it made durable. */
  private long syncAsLeader(CoordinatorEntry entry, long checkpointId) throws IOException {
    Throwable failed = health.failure();
    if (failed != null) {
      throw health.unknownOutcome(entry, checkpointId, "sync", failed);
    }
    if (health.isClosed()) {
      throw new FatalTwoPhaseException(
          "state log " + directory + " was closed before the append of checkpoint "
              + checkpointId + " of coordinator '" + entry.coordinatorId()
              + "' was synced: its outcome is unknown; reopen the log to recover",
          null, checkpointId, null);
    }
    long target;
    Segment seg;
    try {
      appendLock.lock();
      try {
        // Everything appended so far goes out in one write; the sync below covers it all.
        target = writtenSeq;
        writeStaged();
        seg = active;
      } finally {
        appendLock.unlock();
      }
      // A leader's sync always makes an append durable (GroupSync elects a waiter it covers).
      reached(ProtocolPoint.DURING_LOG_APPEND);
      io.force(seg);
    } catch (IOException e) {
      // Recorded here, before GroupSync hands leadership on: the next leader must see it and not
      // sync again, as a second fsync after a failed one may report success for pages the kernel
      // has already dropped.
      health.recordFailure(e);
      throw e;
    }
    // Only now: seg itself may have been retired by a roll while it was being synced.
    compactor.closeRetired();
    return target;
  }

  /** Under the append lock. */
  @GuardedBy("appendLock")
  private void rollIfDue() throws IOException {
    Segment a = active;
    if (compactor.due(a, a.size + staged.position())) {
      roll();
    }
  }

  /** Under the append lock. */
  @GuardedBy("appendLock")
  private void roll() throws IOException {
    writeStaged();
    if (lastStateSeq > sync.durable()) {
      reached(ProtocolPoint.DURING_LOG_APPEND); // the roll's first step syncs that append
    }
    try {
      compactor.roll(active, epoch, writtenSeq, seg -> active = seg);
    } catch (Error e) {
      health.recordFailure(e); // half a roll: as after a failed write
      throw e;
    }
  }

  /**
   * Tells the fault injector that {@code point} is reached. What it throws is a failure of the
   * write or sync in progress: the log turns unusable, as after any failed write or sync.
   */
  private void reached(ProtocolPoint point) throws IOException {
    try {
      faults.reached(point.name());
    } catch (RuntimeException e) {
      throw new IOException("fault injected at " + point + ": " + e, e);
    } catch (Error e) {
      health.recordFailure(e);
      throw e;
    }
  }

  /** The cleared encoding buffer, with at least {@code size} bytes. Under the append lock. */
  @GuardedBy("appendLock")
  private ByteBuffer buffer(int size) {
    if (buffer.capacity() < size) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, 2L * buffer.capacity()));
      buffer = ByteBuffer.allocateDirect(capacity);
    }
    return buffer.clear();
  }

  /** Copies a framed record into the staged buffer (append lock). */
  @GuardedBy("appendLock")
  private void stage(ByteBuffer record) throws IOException {
    if (staged.remaining() < record.remaining()) {
      writeStaged();
      if (staged.capacity() < record.remaining()) {
        staged = ByteBuffer.allocateDirect(record.remaining());
      }
    }
    staged.put(record);
  }

  /** Writes the staged records to the active segment (append lock). */
  @GuardedBy("appendLock")
  private void writeStaged() throws IOException {
    if (staged.position() == 0) {
      return;
    }
    staged.flip();
    try {
      io.write(active, staged);
    } finally {
      staged.clear();
    }
  }
}
