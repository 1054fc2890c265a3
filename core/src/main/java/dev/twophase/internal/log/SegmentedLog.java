package dev.twophase.internal.log;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.CrashPoint;
import dev.twophase.internal.Faults;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of {@code FileStateLog}: one owner's segments in one directory, with group commit and
 * compaction. Format and recovery rules: {@link LogFormat}.
 *
 * <h2>Concurrency</h2>
 * Appends encode their record into a staging buffer under the append lock and take a sequence
 * number; then, outside it, they wait for durability in {@link GroupSync}: if a force already
 * covered their sequence number they return; if no force runs, they lead: they take the append
 * lock briefly to write everything staged in one {@code write}, then force; otherwise they park
 * until a leader releases them or hands them the lead. A lone appender pays one write and one
 * force on its own thread, and concurrent appenders share forces. Rolling to a new segment (and
 * compaction) runs under the append lock. Order: leadership (or {@code runExclusive}) before the
 * append lock, the append lock before GroupSync's monitor; nobody waits for leadership while
 * holding the append lock.
 *
 * <p>After a failed write or force the outcome of the appends involved is unknown; the log turns
 * unusable and every later append fails fast. A failed force is never retried. A write or force
 * whose channel an interrupt closed did not fail: it is done again on a standby descriptor (see
 * {@link Segment} and {@link #onChannel}).
 */
public final class SegmentedLog implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);
  private static final int INITIAL_BUFFER = 64 * 1024;

  /**
   * A segment file open for writing, through two descriptors: {@code channel}, which every write,
   * truncate and sync uses, and a standby opened at the same time. {@link FileChannel} is
   * interruptible: a thread interrupted while it blocks in a write or sync closes the channel for
   * every coordinator sharing the log. The standby then takes over and the operation is done
   * again (see {@link SegmentedLog#onChannel}).
   *
   * <p>Why a standby opened in advance rather than a descriptor opened when needed: on Linux a
   * sync reports a write-back error only through descriptors open when the error happened (each
   * file description keeps its own cursor into the file's error sequence). The interrupted sync
   * may have failed without anyone learning it; a descriptor opened afterwards would let the
   * second sync "succeed" over pages the kernel dropped. So a standby may take over a sync only if
   * it was opened before anything was written to the segment, or before the start of a sync that
   * succeeded since: every error before that start was reported to that sync.
   */
  private static final class Segment {
    final long sequence;
    final Path file;
    /** The descriptor in use; replaced by the standby once an interrupt closed it. */
    volatile FileChannel channel;
    /** Bytes written; guarded by the append lock. */
    long size;
    /**
     * Length of the file: {@code size} plus zeros written ahead of the appends (see {@link
     * #write}); guarded by the append lock.
     */
    long allocated;
    /** Size right after the segment was created by compaction (0 if unknown). */
    long baseSize;

    /**
     * Held for each sync of this segment: two syncs at once on one descriptor could split a
     * write-back error between them, so that one reports it while the other "succeeds".
     */
    final ReentrantLock syncLock = new ReentrantLock();

    // Guarded by this segment's monitor:
    /** Null once no new standby could be opened (the file was deleted by a roll, say). */
    private FileChannel standby;
    /** Syncs begun so far, and the number of the last one that succeeded. */
    private long syncsBegun;
    private long lastGoodSync;
    /** Syncs begun when the standby was opened; -1: opened before anything was written. */
    private long standbyOpenedAfter;
    /** Whether {@code channel} may sync: it would report every write-back error not yet reported. */
    private boolean channelMaySync = true;

    /** Opens both descriptors; {@code fresh}: this process has written nothing to the file yet. */
    Segment(long sequence, Path file, FileChannel channel, long size, boolean fresh)
        throws IOException {
      this.sequence = sequence;
      this.file = file;
      this.channel = channel;
      this.size = size;
      this.allocated = size;
      this.standby = FileChannel.open(file, StandardOpenOption.WRITE);
      this.standbyOpenedAfter = fresh ? -1 : 0;
    }

    /** Numbers a sync about to run on {@code ch}, or throws if {@code ch} may not sync. */
    synchronized long beginSync(FileChannel ch) throws IOException {
      if (ch == channel && !channelMaySync) {
        throw new IOException("segment " + file + ": its descriptor was replaced after interrupts "
            + "and cannot prove that no write-back error was missed");
      }
      return ++syncsBegun;
    }

    synchronized void syncSucceeded(long number) {
      lastGoodSync = Math.max(lastGoodSync, number);
    }

    /**
     * Replaces {@code closed}, closed by an interrupt, with the standby and opens a new standby.
     * The standby may sync only if it was opened before anything was written or before a sync
     * that succeeded since.
     */
    synchronized Takeover takeOver(FileChannel closed) {
      if (channel != closed) {
        return Takeover.BY_ANOTHER_THREAD;
      }
      if (standby == null) {
        return Takeover.NO_STANDBY;
      }
      channelMaySync = standbyOpenedAfter < 0 || lastGoodSync > standbyOpenedAfter;
      channel = standby;
      try {
        standby = FileChannel.open(file, StandardOpenOption.WRITE);
        standbyOpenedAfter = syncsBegun;
      } catch (IOException e) {
        standby = null;
        LOG.warn("State log segment {}: no new standby descriptor ({}); the next interrupt in a "
            + "write or sync fails the log", file, e.toString());
      }
      return Takeover.DONE;
    }

    synchronized void closeChannels() {
      closeQuietly(channel);
      closeQuietly(standby);
    }
  }

  private final Path directory;
  private final long segmentBytes;
  private final Syncer syncer;
  private final DirectoryLock lock;
  private final LogIndex index;
  /** Set once by {@link #recover()}, before the log is published. */
  private long epoch;

  /** The active segment is extended by this many zeros when appends reach its end (0: never). */
  private final long preallocateBytes;
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024);

  private final ReentrantLock appendLock = new ReentrantLock();
  private final CRC32C crc = new CRC32C(); // append lock
  private ByteBuffer buffer = ByteBuffer.allocateDirect(INITIAL_BUFFER); // append lock
  /**
   * Records appended but not yet written to the active segment (append lock). The group's leader
   * writes them all with one system call before its force, so appenders only copy bytes while
   * holding the append lock.
   */
  private ByteBuffer staged = ByteBuffer.allocateDirect(INITIAL_BUFFER);
  private volatile Segment active;
  private volatile long writtenSeq; // written under the append lock
  private final GroupSync sync = new GroupSync();
  private final AtomicLong forces = new AtomicLong();
  private final AtomicLong takeovers = new AtomicLong();
  private final AtomicLong syncTakeovers = new AtomicLong();
  /** Set by close() just before it closes the channels: from then on no takeover. */
  private volatile boolean shutDown;
  /**
   * Runs a sync again after an interrupt closed its channel (see {@link #onChannel}): a daemon
   * thread started on demand, ended after 30 s without work or by {@link #close()}.
   */
  private final ThreadPoolExecutor retrier;
  private final AtomicLong compactions = new AtomicLong();
  /** Segments replaced by compaction whose channels are still open; closed when no force runs. */
  private final Queue<Segment> retired = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Throwable failure;

  private SegmentedLog(
      Path directory, long segmentBytes, long preallocateBytes, Syncer syncer, DirectoryLock lock) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
    this.preallocateBytes = preallocateBytes;
    this.syncer = syncer;
    this.retrier = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "twophase-log-retry " + directory);
          t.setDaemon(true);
          return t;
        });
    this.lock = lock;
    this.index = new LogIndex();
    try {
      recover();
    } catch (RuntimeException | Error e) {
      retrier.shutdown();
      throw e;
    }
  }

  /**
   * Opens (creating if needed) the log in {@code directory}, claims it with an OS lock, recovers it
   * and appends a durable OWNER record with a new epoch.
   *
   * @throws FencedException if another owner holds the directory
   * @throws StateLogCorruptedException if the log is damaged
   * @throws FatalTwoPhaseException if an I/O operation failed
   */
  public static SegmentedLog open(
      Path directory, long segmentBytes, long preallocateBytes, Syncer syncer) {
    Path dir = directory.toAbsolutePath().normalize();
    DirectoryLock lock = null;
    try {
      Directories.createDurably(dir);
      lock = DirectoryLock.acquire(dir);
      return new SegmentedLog(dir, segmentBytes, preallocateBytes, syncer, lock);
    } catch (IOException e) {
      if (lock != null) {
        lock.close();
      }
      throw new FatalTwoPhaseException("could not open the state log in " + dir + ": " + e, e);
    } catch (RuntimeException | Error e) {
      if (lock != null) {
        lock.close();
      }
      throw e;
    }
  }

  /** Reads the log, repairs a torn tail, opens the active segment and appends OWNER. */
  private void recover() {
    try {
      LogReader.Result scan = LogReader.scan(directory, index);
      List<LogReader.ScannedSegment> segments = new ArrayList<>(scan.segments());
      TornTail torn = scan.tornTail();
      long nextSequence = segments.isEmpty() ? 1 : segments.get(segments.size() - 1).sequence();
      if (torn != null) {
        if (torn.headerIncomplete()) {
          Files.delete(torn.file());
          Directories.fsync(directory);
          segments.remove(segments.size() - 1);
          LOG.warn(
              "Removed state log segment {} whose header was never completely written ({} bytes): "
                  + "a crash interrupted its creation; it held no records",
              torn.file(),
              torn.fileSize());
        } else {
          try (FileChannel ch = FileChannel.open(torn.file(), StandardOpenOption.WRITE)) {
            ch.truncate(torn.offset());
            ch.force(true);
          }
          if (torn.zeros()) {
            LOG.debug("Cut {} bytes of zeros written ahead of the appends off state log segment {} "
                + "at offset {}", torn.bytes(), torn.file(), torn.offset());
          } else {
            LOG.warn(
                "Cut off the torn tail of state log segment {} at offset {} ({} bytes: {}): a crash"
                    + " interrupted an append that had not returned",
                torn.file(),
                torn.offset(),
                torn.bytes(),
                torn.reason());
          }
        }
      }
      long newEpoch = Math.addExact(index.maxEpoch(), 1);
      index.raiseEpoch(newEpoch);
      epoch = newEpoch;
      long totalBytes = 0;
      for (LogReader.ScannedSegment s : segments) {
        totalBytes += s.validEnd();
      }
      if (segments.isEmpty()) {
        active = createSegment(nextSequence, List.of(), false);
      } else {
        LogReader.ScannedSegment last = segments.get(segments.size() - 1);
        FileChannel ch = FileChannel.open(last.file(), StandardOpenOption.WRITE);
        try {
          // Both descriptors are opened before this process writes anything: the standby may sync.
          active = new Segment(last.sequence(), last.file(), ch, last.validEnd(), true);
        } catch (IOException | RuntimeException e) {
          closeQuietly(ch);
          throw e;
        }
        ByteBuffer buf = buffer(LogFormat.ownerRecordSize());
        LogFormat.putOwner(buf, crc, newEpoch);
        buf.flip();
        write(active, buf);
        force(active);
      }
      if (segments.isEmpty()) {
        LOG.info("Created state log {} as owner epoch {}", directory, newEpoch);
      } else if (LOG.isInfoEnabled()) {
        LOG.info(
            "Opened state log {} as owner epoch {}: found {} segment(s) with {} bytes, {}"
                + " coordinator(s){}",
            directory,
            newEpoch,
            segments.size(),
            totalBytes,
            index.liveCoordinators(),
            coordinatorList());
      }
      maybeRoll();
    } catch (IOException e) {
      closeAllChannels();
      throw new FatalTwoPhaseException(
          "could not open the state log in " + directory + ": " + e, e);
    } catch (RuntimeException | Error e) {
      closeAllChannels();
      throw e;
    }
  }

  /** Closes the active and the retired segments (a roll at open may have retired one). */
  private void closeAllChannels() {
    closeRetired();
    if (active != null) {
      active.closeChannels();
    }
  }

  private String coordinatorList() {
    StringJoiner j = new StringJoiner(", ", " [", "]");
    int n = 0;
    for (CoordinatorEntry e : index.entries()) {
      if (!e.isEmpty()) {
        if (++n > 10) {
          j.add("...");
          break;
        }
        j.add(e.coordinatorId());
      }
    }
    return n == 0 ? "" : j.toString();
  }

  public Path directory() {
    return directory;
  }

  public long ownerEpoch() {
    return epoch;
  }

  /** The entry of {@code coordinatorId}, created empty if the log holds nothing for it. */
  public CoordinatorEntry entry(String coordinatorId) {
    appendLock.lock();
    try {
      checkOpen();
      return index.entry(coordinatorId);
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Times a standby descriptor took over after an interrupt closed a channel, in all and during a
   * sync; for tests.
   */
  public long[] takeoverCounts() {
    return new long[] {takeovers.get(), syncTakeovers.get()};
  }

  /** Forces performed since open (including those of open and compaction). */
  public long forceCount() {
    return forces.get();
  }

  /** Compactions performed since open. */
  public long compactionCount() {
    return compactions.get();
  }

  /** Records written since open. */
  public long writtenSequence() {
    return writtenSeq;
  }

  public boolean isClosed() {
    return closed.get();
  }

  // ------------------------------------------------------------------ appends

  /**
   * Appends a STATE record for {@code entry} and returns once it is durable.
   *
   * @throws IllegalArgumentException if {@code checkpointId} is below the entry's last state
   */
  public void appendState(CoordinatorEntry entry, long checkpointId, byte[] payload) {
    byte[] owned = payload.clone();
    int size = LogFormat.stateRecordSize(entry.idBytes().length, owned.length);
    long seq;
    appendLock.lock();
    try {
      checkWritable(entry, checkpointId);
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
      if (Faults.ENABLED && Faults.shouldCrash(CrashPoint.DURING_LOG_APPEND)) {
        tornWriteAndHalt(buf);
      }
      try {
        stage(buf);
      } catch (IOException e) {
        throw fail(e, entry, checkpointId, "write");
      }
      entry.setState(checkpointId, epoch, owned);
      seq = recordWritten(entry, checkpointId);
    } finally {
      appendLock.unlock();
    }
    awaitDurable(seq, entry, checkpointId);
  }

  /** Appends a COMPLETED record for {@code entry} if it raises its mark. Not forced. */
  public void appendCompletion(CoordinatorEntry entry, long checkpointId) {
    appendLock.lock();
    try {
      checkWritable(entry, checkpointId);
      if (checkpointId <= entry.lastCompletedCheckpointId()) {
        return; // adds nothing: the highest mark wins
      }
      ByteBuffer buf = buffer(LogFormat.completedRecordSize(entry.idBytes().length));
      LogFormat.putCompleted(buf, crc, entry.idBytes(), checkpointId, epoch);
      buf.flip();
      try {
        // Written now (not forced), so that readers and a later crash see it in order.
        stage(buf);
        writeStaged();
      } catch (IOException e) {
        throw fail(e, entry, checkpointId, "write of a completion mark");
      }
      entry.complete(checkpointId, epoch);
      recordWritten(entry, checkpointId);
    } finally {
      appendLock.unlock();
    }
  }

  /** Under the append lock, after a record was staged: numbers it and rolls if due. */
  private long recordWritten(CoordinatorEntry entry, long checkpointId) {
    long seq = writtenSeq + 1;
    writtenSeq = seq;
    try {
      maybeRoll();
    } catch (IOException e) {
      throw fail(e, entry, checkpointId, "compaction");
    }
    return seq;
  }

  /** Rolls to a new segment holding only the live state now, and deletes the older ones. */
  public void compact() {
    appendLock.lock();
    try {
      checkWritable(null, -1);
      try {
        roll();
      } catch (IOException e) {
        throw fail(e, null, -1, "compaction");
      }
    } finally {
      appendLock.unlock();
    }
  }

  private void tornWriteAndHalt(ByteBuffer buf) {
    try {
      writeStaged();
      buf.limit(buf.position() + buf.remaining() / 2);
      write(active, buf);
      active.channel.force(false);
    } catch (IOException e) {
      LOG.warn("torn write for crash injection failed", e);
    }
    Faults.halt(CrashPoint.DURING_LOG_APPEND);
  }

  /** Waits until record {@code seq} is durable: see {@link GroupSync}. */
  private void awaitDurable(long seq, CoordinatorEntry entry, long checkpointId) {
    try {
      sync.await(seq, () -> forceAsLeader(entry, checkpointId));
    } catch (IOException e) {
      throw fail(e, entry, checkpointId, "sync");
    }
  }

  /** Run by the elected leader only; returns the sequence it made durable. */
  private long forceAsLeader(CoordinatorEntry entry, long checkpointId) throws IOException {
    Throwable failed = failure;
    if (failed != null) {
      throw unknownOutcome(entry, checkpointId, "sync", failed);
    }
    if (closed.get()) {
      throw new FencedException(
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
        // Everything appended so far goes out in one write; the force below covers it all.
        target = writtenSeq;
        writeStaged();
        seg = active;
      } finally {
        appendLock.unlock();
      }
      force(seg);
    } catch (IOException e) {
      // Recorded here, before GroupSync hands leadership on: the next leader must see it and not
      // force again, as a second fsync after a failed one may report success for pages the kernel
      // has already dropped.
      recordFailure(e);
      throw e;
    }
    // Only now: seg itself may have been retired by a roll while it was being forced.
    closeRetired();
    return target;
  }

  // ------------------------------------------------------------------ segments and compaction

  private void maybeRoll() throws IOException {
    Segment a = active;
    long size = a.size + staged.position();
    // Roll when past the threshold, but only once at least half the segment is history, so that a
    // live state bigger than the threshold does not compact on every append.
    if (size > segmentBytes && size >= 2 * a.baseSize) {
      roll();
    }
  }

  /** Under the append lock. */
  private void roll() throws IOException {
    writeStaged();
    Segment old = active;
    long before = old.size;
    // Make the old segment complete on disk: only the last segment may end torn, or in zeros.
    trimAllocation(old);
    force(old);
    sync.advance(writtenSeq);

    List<CoordinatorEntry> live = new ArrayList<>();
    for (CoordinatorEntry e : index.entries()) {
      if (!e.isEmpty()) {
        live.add(e);
      }
    }
    Segment seg = createSegment(old.sequence + 1, live, true);
    active = seg;
    sync.advance(writtenSeq);
    retired.add(old);

    int deleted = 0;
    long deletedBytes = 0;
    for (LogReader.SegmentFile f : LogReader.listSegments(directory)) {
      if (f.sequence() < seg.sequence) {
        long size = Files.size(f.file());
        if (Files.deleteIfExists(f.file())) {
          deleted++;
          deletedBytes += size;
        }
      }
    }
    syncDirectory();
    sync.runIfIdle(this::closeRetired); // else the leader forcing now closes them after its force
    compactions.incrementAndGet();
    LOG.debug(
        "Compacted state log {}: segment {} of {} bytes rolled to {} with {} bytes for {}"
            + " coordinator(s); deleted {} older segment(s) with {} bytes",
        directory,
        old.sequence,
        before,
        seg.file.getFileName(),
        seg.size,
        live.size(),
        deleted,
        deletedBytes);
  }

  /**
   * Creates segment {@code sequence} holding an OWNER record and the given entries, forced, with
   * the directory synced. Under the append lock (or during open).
   */
  private Segment createSegment(long sequence, List<CoordinatorEntry> entries, boolean compaction)
      throws IOException {
    Path file = directory.resolve(LogFormat.segmentFileName(sequence));
    FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    Segment seg;
    try {
      seg = new Segment(sequence, file, ch, 0, true);
    } catch (IOException | RuntimeException e) {
      closeQuietly(ch);
      throw e;
    }
    try {
      ByteBuffer buf = buffer(INITIAL_BUFFER);
      LogFormat.putSegmentHeader(buf, crc, sequence);
      LogFormat.putOwner(buf, crc, epoch);
      int half = (entries.size() + 1) / 2;
      putEntries(seg, entries.subList(0, half));
      if (compaction && Faults.ENABLED && Faults.shouldCrash(CrashPoint.DURING_COMPACTION)) {
        flush(seg);
        ch.force(false);
        Faults.halt(CrashPoint.DURING_COMPACTION);
      }
      putEntries(seg, entries.subList(half, entries.size()));
      flush(seg);
      force(seg);
      syncDirectory();
      seg.baseSize = seg.size;
      return seg;
    } catch (IOException | RuntimeException | Error e) {
      seg.closeChannels();
      throw e;
    }
  }

  private void putEntries(Segment seg, List<CoordinatorEntry> entries) throws IOException {
    for (CoordinatorEntry e : entries) {
      CoordinatorEntry.State s = e.state();
      if (s != null) {
        room(seg, LogFormat.stateRecordSize(e.idBytes().length, s.payload.length));
        LogFormat.putState(buffer, crc, e.idBytes(), s.checkpointId, s.epoch, s.payload);
      }
      if (e.lastCompletedCheckpointId() > 0) {
        room(seg, LogFormat.completedRecordSize(e.idBytes().length));
        LogFormat.putCompleted(
            buffer, crc, e.idBytes(), e.lastCompletedCheckpointId(), e.completedEpoch());
      }
    }
  }

  /** Makes room for {@code size} bytes in the buffer, writing out what it holds if needed. */
  private void room(Segment seg, int size) throws IOException {
    if (buffer.remaining() >= size) {
      return;
    }
    flush(seg);
    if (buffer.capacity() < size) {
      buffer(size);
    }
  }

  private void flush(Segment seg) throws IOException {
    buffer.flip();
    write(seg, buffer);
    buffer.clear();
  }

  /** The cleared shared buffer, with at least {@code size} bytes. Under the append lock. */
  private ByteBuffer buffer(int size) {
    if (buffer.capacity() < size) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, 2L * buffer.capacity()));
      buffer = ByteBuffer.allocateDirect(capacity);
    }
    return buffer.clear();
  }

  /** Copies a framed record into the staged buffer (append lock). */
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
  private void writeStaged() throws IOException {
    if (staged.position() == 0) {
      return;
    }
    staged.flip();
    try {
      write(active, staged);
    } finally {
      staged.clear();
    }
  }

  /**
   * Writes at the end of the segment's records. The file is extended ahead of the records,
   * {@link #preallocateBytes} of zeros at a time, so that most syncs find the file's size and
   * blocks unchanged and need not write its metadata: on ext4 a sync of an append that grows the
   * file also writes the inode (and, with a journal, commits it). A reader takes zeros after the
   * last record for unused space (see {@link TornTail#zeros()}); a roll and a clean close cut them
   * off, and so does the next open after a crash.
   */
  private void write(Segment seg, ByteBuffer buf) throws IOException {
    long end = seg.size + buf.remaining();
    if (end > seg.allocated && preallocateBytes > 0) {
      long target = (end / preallocateBytes + 1) * preallocateBytes;
      long from = seg.allocated;
      onChannel(seg, false, ch -> {
        ByteBuffer zeros = ZEROS.duplicate();
        for (long at = from; at < target; ) {
          zeros.clear().limit((int) Math.min(zeros.capacity(), target - at));
          at += ch.write(zeros, at);
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
  }

  /** Cuts the zeros written ahead off the end of {@code seg} (not synced). */
  private void trimAllocation(Segment seg) throws IOException {
    if (seg.allocated > seg.size) {
      onChannel(seg, false, ch -> ch.truncate(seg.size));
      seg.allocated = seg.size;
    }
  }

  private void force(Segment seg) throws IOException {
    onChannel(seg, true, syncer::force);
    forces.incrementAndGet();
  }

  /**
   * Syncs the log's directory on the retry thread, which nobody interrupts: the sync opens a
   * channel of its own, and an interrupt would close it and fail the roll, while a second sync on
   * a new descriptor could miss a write-back error of the first (see {@link Segment}). Rolls are
   * rare; the hand-off costs tens of microseconds.
   */
  private void syncDirectory() throws IOException {
    onRetryThread(() -> Directories.fsync(directory));
  }

  /** What {@link Segment#takeOver} did. */
  private enum Takeover {
    DONE,
    /** The channel had been replaced already: use the current one. */
    BY_ANOTHER_THREAD,
    /** No standby: the step fails. */
    NO_STANDBY
  }

  /** An I/O step on a segment's channel; may run again on another descriptor. */
  private interface ChannelStep {
    void run(FileChannel channel) throws IOException;
  }

  /** How often one step is done again after interrupts closed its channel. */
  private static final int TAKEOVERS = 3;

  /**
   * Runs {@code step} on the segment's channel with this thread's interrupt flag held back (cleared
   * now, set again before returning), so that a flag set earlier does not close the channel. If an
   * interrupt arriving meanwhile closes it (this thread's, or another's while this one used the
   * channel), the segment's standby takes over and the step runs again. The steps are idempotent:
   * writes of the same bytes at the same offsets, a truncate, a sync. A sync runs again on the
   * log's own thread, which nobody interrupts: a second interrupt of this thread during it would
   * need a standby opened before the first sync began, and there is none (see {@link Segment}).
   * Not after {@link #close()}, nor for a sync the standby may not take over; then the step fails
   * as any failed I/O does.
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
          forces.incrementAndGet();
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
        Takeover t = seg.takeOver(ch);
        if (t == Takeover.NO_STANDBY) {
          throw e;
        }
        if (t == Takeover.DONE) {
          this.takeovers.incrementAndGet();
          if (sync) {
            syncTakeovers.incrementAndGet();
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
      Throwable failed = failure;
      if (failed != null) {
        throw new IOException("an earlier write or sync of the log failed", failed);
      }
      long number = seg.beginSync(ch);
      try {
        step.run(ch);
      } catch (ClosedChannelException e) {
        throw e; // not a failure of the sync: done again on a standby, or failed by the caller
      } catch (IOException | RuntimeException e) {
        recordFailure(e);
        throw e;
      }
      seg.syncSucceeded(number);
    } finally {
      seg.syncLock.unlock();
    }
  }

  /** I/O done on the retry thread. */
  private interface RetryCall {
    void run() throws IOException;
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
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IOException(cause);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** While no force runs (a leader's channel may be among the retired). */
  private void closeRetired() {
    Segment s;
    while ((s = retired.poll()) != null) {
      s.closeChannels();
    }
  }

  // ------------------------------------------------------------------ failure and close

  private void checkOpen() {
    if (closed.get()) {
      throw new FencedException(
          "state log " + directory + " is closed: this owner released it; open it again");
    }
  }

  private void checkWritable(CoordinatorEntry entry, long checkpointId) {
    if (closed.get()) {
      throw new FencedException(
          "state log " + directory + " is closed: this owner released it"
              + (entry == null ? "" : ", so coordinator '" + entry.coordinatorId()
                  + "' cannot append checkpoint " + checkpointId),
          null, checkpointId, null);
    }
    Throwable failed = failure;
    if (failed != null) {
      throw new FatalTwoPhaseException(
          "state log " + directory + " is unusable after an earlier I/O failure, after which the"
              + " outcome of an append is unknown: close it and reopen it to recover",
          failed, checkpointId, null);
    }
  }

  /** Marks the log unusable; the first failure is the one reported. */
  private synchronized void recordFailure(Throwable e) {
    if (failure == null) {
      failure = e;
    }
  }

  /** Marks the log unusable after a failed write or force and returns the error to throw. */
  private TwoPhaseException fail(
      IOException e, CoordinatorEntry entry, long checkpointId, String operation) {
    recordFailure(e);
    LOG.error("State log {}: {} failed; the log is now unusable", directory, operation, e);
    return unknownOutcome(entry, checkpointId, operation, e);
  }

  private TwoPhaseException unknownOutcome(
      CoordinatorEntry entry, long checkpointId, String operation, Throwable cause) {
    String what = entry == null ? "the operation" : "the append of checkpoint " + checkpointId
        + " of coordinator '" + entry.coordinatorId() + "'";
    return new FatalTwoPhaseException(
        "state log " + directory + ": " + operation + " failed (" + cause + "), so the outcome of "
            + what + " is unknown: it may or may not be durable. The log is unusable; close it"
            + " and reopen it to recover",
        cause, checkpointId, null);
  }

  /** Syncs what was written, closes the segments and releases the directory. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Lock order as a leader's: no force running first, then the append lock.
    sync.runExclusive(() -> {
      appendLock.lock();
      try {
        Segment seg = active;
        long target = -1;
        if (failure == null && (staged.position() > 0 || sync.durable() < writtenSeq)) {
          try {
            writeStaged();
            force(seg);
            target = writtenSeq;
          } catch (IOException e) {
            failure = e;
            LOG.warn("State log {}: sync at close failed", directory, e);
          }
        }
        if (failure == null) {
          try {
            trimAllocation(seg); // not synced: if it is lost, the next open cuts the zeros
          } catch (IOException e) {
            LOG.debug("State log {}: trimming the active segment at close failed", directory, e);
          }
        }
        return target;
      } finally {
        try {
          shutDown = true;
          closeAllChannels();
          retrier.shutdown();
          lock.close();
        } finally {
          appendLock.unlock();
        }
      }
    });
    LOG.info("Closed state log {} (owner epoch {})", directory, epoch);
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("close failed", e);
      }
    }
  }

  @Override
  public String toString() {
    return "SegmentedLog{" + directory + ", epoch " + epoch + "}";
  }
}
