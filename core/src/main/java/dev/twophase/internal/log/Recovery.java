package dev.twophase.internal.log;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.zip.CRC32C;
import org.slf4j.Logger;

/**
 * Opening a log: creates the directory if needed, claims it with an OS lock, reads the segments
 * ({@link LogReader}), cuts off a torn tail, opens the active segment (or creates the first one),
 * appends a durable OWNER record with a new epoch and rolls if the active segment is due. Every
 * failure releases what the open took.
 */
final class Recovery {

  private static final Logger LOG = SegmentedLog.LOG;

  private final Path directory;
  private final long segmentBytes;
  private final long preallocateBytes;
  private final Syncer syncer;
  private final DirectoryLock lock;
  private final LogIndex index = new LogIndex();
  private final LogHealth health;
  private final LogCounters counters = new LogCounters();
  private final GroupSync sync = new GroupSync();
  private SegmentIo io;
  private Compactor compactor;
  private Segment active;

  private Recovery(Path directory, long segmentBytes, long preallocateBytes, Syncer syncer,
      DirectoryLock lock) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
    this.preallocateBytes = preallocateBytes;
    this.syncer = syncer;
    this.lock = lock;
    this.health = new LogHealth(directory);
  }

  /**
   * Opens (creating if needed) the log in {@code directory}, claims it with an OS lock, recovers it
   * and appends a durable OWNER record with a new epoch.
   *
   * @throws FencedException if another owner holds the directory
   * @throws StateLogCorruptedException if the log is damaged
   * @throws FatalTwoPhaseException if an I/O operation failed
   */
  static SegmentedLog open(Path directory, long segmentBytes, long preallocateBytes, Syncer syncer) {
    Path dir = directory.toAbsolutePath().normalize();
    DirectoryLock lock = null;
    try {
      Directories.createDurably(dir);
      lock = DirectoryLock.acquire(dir);
      return new Recovery(dir, segmentBytes, preallocateBytes, syncer, lock).recover();
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
  private SegmentedLog recover() throws IOException {
    io = new SegmentIo(directory, preallocateBytes, syncer, health, counters);
    compactor = new Compactor(directory, segmentBytes, io, index, sync, counters);
    AppendPath appends = null;
    try {
      LogReader.Result scan = LogReader.scan(directory, index);
      List<LogReader.ScannedSegment> segments = new ArrayList<>(scan.segments());
      long nextSequence = segments.isEmpty() ? 1 : segments.get(segments.size() - 1).sequence();
      if (scan.tornTail() != null) {
        cut(scan.tornTail(), segments);
      }
      long epoch = Math.addExact(index.maxEpoch(), 1);
      index.raiseEpoch(epoch);
      long totalBytes = 0;
      for (LogReader.ScannedSegment s : segments) {
        totalBytes += s.validEnd();
      }
      if (segments.isEmpty()) {
        active = compactor.createSegment(nextSequence, epoch, List.of(), false);
      } else {
        LogReader.ScannedSegment last = segments.get(segments.size() - 1);
        active = Segment.reopen(last.sequence(), last.file(), last.validEnd());
        ByteBuffer buf = ByteBuffer.allocate(LogFormat.ownerRecordSize());
        LogFormat.putOwner(buf, new CRC32C(), epoch);
        buf.flip();
        io.write(active, buf);
        io.force(active);
      }
      if (segments.isEmpty()) {
        LOG.info("Created state log {} as owner epoch {}", directory, epoch);
      } else if (LOG.isInfoEnabled()) {
        LOG.info(
            "Opened state log {} as owner epoch {}: found {} segment(s) with {} bytes, {}"
                + " coordinator(s){}",
            directory,
            epoch,
            segments.size(),
            totalBytes,
            index.liveCoordinators(),
            coordinatorList());
      }
      appends = new AppendPath(
          directory, epoch, index, active, io, compactor, health, sync, counters);
      appends.maybeRoll();
      return new SegmentedLog(directory, epoch, lock, appends, io, compactor, health, counters);
    } catch (IOException | RuntimeException | Error e) {
      compactor.closeRetired(); // a roll at open may have retired one
      Segment last = appends != null ? appends.active() : active;
      if (last != null) {
        last.closeChannels();
      }
      io.shutDown();
      throw e;
    }
  }

  /** Cuts off the torn tail of the last segment, or deletes it if its header is incomplete. */
  private void cut(TornTail torn, List<LogReader.ScannedSegment> segments) throws IOException {
    if (torn.headerIncomplete()) {
      Files.delete(torn.file());
      Directories.fsync(directory);
      segments.remove(segments.size() - 1);
      LOG.warn(
          "Removed state log segment {} whose header was never completely written ({} bytes): "
              + "a crash interrupted its creation; it held no records",
          torn.file(),
          torn.fileSize());
      return;
    }
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
}
