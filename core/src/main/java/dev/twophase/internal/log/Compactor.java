package dev.twophase.internal.log;

import dev.twophase.FaultInjector;
import dev.twophase.ProtocolPoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;

/**
 * Creating segments, and rolling to a new one that holds only the live state (compaction).
 *
 * <p>A roll, under the append lock and with every staged record written: cuts the zeros written
 * ahead off the active segment and syncs it (only the last segment may end torn or in zeros);
 * writes the next segment with an OWNER record and, per coordinator in id order, its last STATE
 * and highest COMPLETED record, and syncs it and the directory; appends to the old segment a SEAL
 * naming the new one and syncs it (not to a segment of format 2); only then appends go to the new
 * segment; deletes the older segments, oldest first, and syncs the directory again. A crash at
 * any point loses nothing: the older segments go only once the new one is complete and durable,
 * and its records restate theirs.
 *
 * <p>The order makes a missing segment detectable ({@link LogFormat}, "Seals"): the seal is
 * written only once its successor is durable, so a sealed segment without a successor is a
 * deleted segment, never a crash; and an unsealed segment followed by one segment is a roll
 * interrupted before its seal, whose successor holds nothing new (no append reached it), which the
 * next open seals ({@code LogOpening}).
 *
 * <p>When: once the active segment is larger than {@code segmentBytes} and at least twice its
 * size right after it was created (its {@link Segment#baseSize}), so that a live state bigger
 * than the threshold does not compact on every append.
 *
 * <p>The {@link FaultInjector} is told {@link ProtocolPoint#DURING_COMPACTION} once the new
 * segment of a roll is written, before it is synced and before the older segments are deleted.
 * The seal has no point of its own: a process killed at that point leaves the new segment whole
 * and the old one unsealed, the state a crash before the seal leaves; what a power loss leaves of
 * the seal (a prefix, or zeros) and the state after it are made by the tests from that one.
 */
final class Compactor {

  private static final Logger LOG = SegmentedLog.LOG;
  private static final int INITIAL_BUFFER = 64 * 1024;

  private final Path directory;
  private final String logId;
  private final long segmentBytes;
  private final SegmentIo io;
  private final LogIndex index;
  private final GroupSync sync;
  private final LogCounters counters;
  private final FaultInjector faults;
  private final CRC32C crc = new CRC32C();
  /** Where new segments are encoded; under the append lock (or during open). */
  private ByteBuffer buffer = ByteBuffer.allocateDirect(0);
  /** Segments replaced by a roll whose channels are still open; closed when no sync runs. */
  private final Queue<Segment> retired = new ConcurrentLinkedQueue<>();

  Compactor(Path directory, String logId, long segmentBytes, SegmentIo io, LogIndex index,
      GroupSync sync, LogCounters counters, FaultInjector faults) {
    this.directory = directory;
    this.logId = logId;
    this.segmentBytes = segmentBytes;
    this.io = io;
    this.index = index;
    this.sync = sync;
    this.counters = counters;
    this.faults = faults;
  }

  /** Whether a segment with {@code size} bytes of records (written or staged) is due to roll. */
  boolean due(Segment active, long size) {
    return size > segmentBytes && size >= 2 * active.baseSize;
  }

  /**
   * Rolls from {@code old}, the active segment, to the next one holding the live state, hands it
   * to {@code publish} as the new active segment as soon as it is durable, and deletes the older
   * segments. Under the append lock, with every staged record written to {@code old}; records up
   * to {@code writtenSeq} are durable once {@code old} is synced, and their appenders are released
   * then.
   */
  void roll(Segment old, long epoch, long writtenSeq, Consumer<Segment> publish)
      throws IOException {
    long before = old.size;
    // Make the old segment complete on disk: only the last segment may end torn, or in zeros.
    io.trimAllocation(old);
    io.force(old);
    sync.advance(writtenSeq);

    List<CoordinatorEntry> live = new ArrayList<>();
    for (CoordinatorEntry e : index.entries()) {
      if (!e.isEmpty()) {
        live.add(e);
      }
    }
    Segment seg = createSegment(old.sequence + 1, epoch, live, true);
    try {
      seal(old);
    } catch (IOException | RuntimeException | Error e) {
      seg.closeChannels();
      throw e;
    }
    publish.accept(seg);
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
    io.syncDirectory();
    sync.runIfIdle(this::closeRetired); // else the leader syncing now closes them after its sync
    counters.compactions.incrementAndGet();
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
   * Creates segment {@code sequence} holding an OWNER record and the given entries, synced, with
   * the directory synced. Under the append lock (or during open).
   */
  Segment createSegment(long sequence, long epoch, List<CoordinatorEntry> entries,
      boolean compaction) throws IOException {
    Segment seg = Segment.create(sequence, directory.resolve(LogFormat.segmentFileName(sequence)));
    try {
      ByteBuffer buf = buffer(INITIAL_BUFFER);
      LogFormat.putSegmentHeader(buf, crc, sequence, logId);
      LogFormat.putOwner(buf, crc, epoch);
      putEntries(seg, entries);
      flush(seg);
      if (compaction) {
        try {
          faults.reached(ProtocolPoint.DURING_COMPACTION.name());
        } catch (RuntimeException e) {
          throw new IOException("fault injected at " + ProtocolPoint.DURING_COMPACTION + ": " + e, e);
        }
      }
      io.force(seg);
      io.syncDirectory();
      seg.baseSize = seg.size;
      return seg;
    } catch (IOException | RuntimeException | Error e) {
      seg.closeChannels();
      throw e;
    }
  }

  /**
   * Appends to {@code old}, whose successor is durable, the SEAL naming it, and syncs it; nothing
   * for a segment of format 2, which has no seals.
   */
  private void seal(Segment old) throws IOException {
    if (old.version < LogFormat.SEALED_SINCE_VERSION) {
      return;
    }
    ByteBuffer b = ByteBuffer.allocate(LogFormat.sealRecordSize());
    LogFormat.putSeal(b, crc, old.sequence + 1);
    io.writeLast(old, b.flip());
    io.force(old);
  }

  /** Closes the channels of segments replaced by rolls. While no sync runs. */
  void closeRetired() {
    Segment s;
    while ((s = retired.poll()) != null) {
      s.closeChannels();
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
    io.write(seg, buffer);
    buffer.clear();
  }

  /** The cleared buffer, with at least {@code size} bytes. */
  private ByteBuffer buffer(int size) {
    if (buffer.capacity() < size) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, 2L * buffer.capacity()));
      buffer = ByteBuffer.allocateDirect(capacity);
    }
    return buffer.clear();
  }
}
