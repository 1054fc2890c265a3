package dev.twophase.internal.log;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
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
 * ({@link LogReader}), cuts off a torn tail, seals the segment before the last if a crash
 * interrupted the roll before its seal ({@link LogFormat}, "Seals"), opens the active segment (or
 * creates the first one), appends a durable OWNER record with a new epoch and rolls if the active
 * segment is due, or if the log holds a segment of format 2 (which has no seals). Every failure
 * releases what the open took.
 */
final class LogOpening {

  private static final Logger LOG = SegmentedLog.LOG;

  private final Path directory;
  private final long segmentBytes;
  private final long preallocateBytes;
  private final Syncer syncer;
  private final FaultInjector faults;
  private final DirectoryLock lock;
  private final LogIndex index = new LogIndex();
  private final LogHealth health;
  private final LogCounters counters = new LogCounters();
  private final GroupSync sync = new GroupSync();
  private SegmentIo io;
  private Compactor compactor;
  private Segment active;
  /** The first segment of a new log, once this open is about to create it. */
  private Path createdSegment;

  private LogOpening(Path directory, long segmentBytes, long preallocateBytes, Syncer syncer,
      FaultInjector faults, DirectoryLock lock) {
    this.directory = directory;
    this.segmentBytes = segmentBytes;
    this.preallocateBytes = preallocateBytes;
    this.syncer = syncer;
    this.faults = faults;
    this.lock = lock;
    this.health = new LogHealth(directory);
  }

  /**
   * Opens (creating if needed) the log in {@code directory}, claims it with an OS lock, recovers it
   * and appends a durable OWNER record with a new epoch. If anything fails, nothing stays held (the
   * lock, this JVM's claim on the directory, channels, the retry thread), and what the open created
   * is removed again: the first segment of a new log, and {@code LOCK} and the directories if it
   * created the directory.
   *
   * @throws FencedException if another owner holds the directory
   * @throws StateLogCorruptedException if the log is damaged
   * @throws FatalTwoPhaseException if an I/O operation failed; the message says which and, where it
   *     can tell, what to do
   */
  static SegmentedLog open(Path directory, long segmentBytes, long preallocateBytes, Syncer syncer,
      FaultInjector faults) {
    Path dir = directory.toAbsolutePath().normalize();
    List<Path> createdDirectories = List.of();
    DirectoryLock lock = null;
    LogOpening recovery = null;
    try {
      createdDirectories = Directories.createDurably(dir);
      lock = DirectoryLock.acquire(dir);
      recovery = new LogOpening(dir, segmentBytes, preallocateBytes, syncer, faults, lock);
      return recovery.recover();
    } catch (IOException e) {
      undo(e, recovery, lock, createdDirectories);
      throw new FatalTwoPhaseException(
          "could not open the state log in " + dir + ": " + describe(e), e);
    } catch (RuntimeException | Error e) {
      undo(e, recovery, lock, createdDirectories);
      throw e;
    }
  }

  /** Releases and removes what a failed open took and created (see {@link #open}). */
  private static void undo(Throwable failure, LogOpening recovery, DirectoryLock lock,
      List<Path> createdDirectories) {
    if (recovery != null) {
      recovery.removeCreatedSegment(failure);
    }
    if (lock != null) {
      if (createdDirectories.isEmpty()) {
        lock.close();
      } else {
        lock.deleteLockFileAndClose(createdDirectories);
      }
    } else {
      for (int i = createdDirectories.size() - 1; i >= 0; i--) {
        try {
          Files.delete(createdDirectories.get(i));
        } catch (IOException | RuntimeException e) {
          failure.addSuppressed(e);
          break;
        }
      }
    }
  }

  /** An I/O error for a message: its own text if it is one of the log's, else type and text. */
  private static String describe(IOException e) {
    boolean own = e.getClass() == IOException.class
        || (e instanceof FileSystemException fileSystemException && fileSystemException.getFile() == null);
    return own ? e.getMessage() : e.toString();
  }

  /** Reads the log, repairs a torn tail, opens the active segment and appends OWNER. */
  private SegmentedLog recover() throws IOException {
    LogReader.Result scan = LogReader.scan(directory, index);
    List<LogReader.ScannedSegment> segments = new ArrayList<>(scan.segments());
    long nextSequence = segments.isEmpty() ? 1 : segments.get(segments.size() - 1).sequence();
    if (scan.tornTail() != null) {
      cut(scan.tornTail(), segments);
    }
    if (scan.unsealed() != null) {
      completeRoll(scan.unsealed(), scan.tornSeal(), segments);
    }
    // A log without a segment with a complete header is new (a first segment whose header was
    // never completely written was deleted just now: its open never returned, so nobody learned
    // of its id).
    String logId = segments.isEmpty() ? LogFormat.newLogId() : scan.logId();
    if (logId == null) { // every segment with a header has one: the reader reports anything else
      throw new StateLogCorruptedException("the log has segments but no segment header with its"
          + " log id; nothing was changed", segments.get(0).file(), 0);
    }
    io = new SegmentIo(directory, preallocateBytes, syncer, health, counters);
    compactor = new Compactor(directory, logId, segmentBytes, io, index, sync, counters, faults);
    AppendPath appends = null;
    try {
      long epoch = Math.addExact(index.maxEpoch(), 1);
      index.raiseEpoch(epoch);
      long totalBytes = 0;
      for (LogReader.ScannedSegment s : segments) {
        totalBytes += s.validEnd();
      }
      if (segments.isEmpty()) {
        createdSegment = directory.resolve(LogFormat.segmentFileName(nextSequence));
        active = compactor.createSegment(nextSequence, epoch, List.of(), false);
      } else {
        LogReader.ScannedSegment last = segments.get(segments.size() - 1);
        active = Segment.reopen(last.sequence(), last.file(), last.version(), last.validEnd());
        ByteBuffer buf = ByteBuffer.allocate(LogFormat.ownerRecordSize());
        LogFormat.putOwner(buf, new CRC32C(), epoch);
        buf.flip();
        io.write(active, buf);
        io.force(active);
      }
      appends = new AppendPath(
          directory, epoch, index, active, io, compactor, health, sync, counters, faults);
      if (scan.oldFormat()) {
        LOG.info("State log {} holds a segment of format {}, without seals: rolling it to a"
            + " segment of format {}", directory, LogFormat.OLDEST_READ_VERSION, LogFormat.VERSION);
      }
      appends.maybeRoll(scan.oldFormat());
      if (segments.isEmpty()) {
        LOG.info("Created state log {} (log id {}) as owner epoch {}", directory, logId, epoch);
      } else if (LOG.isInfoEnabled()) {
        LOG.info(
            "Opened state log {} (log id {}) as owner epoch {}: found {} segment(s) with {} bytes,"
                + " {} coordinator(s){}",
            directory,
            logId,
            epoch,
            segments.size(),
            totalBytes,
            index.liveCoordinators(),
            coordinatorList());
      }
      return new SegmentedLog(
          directory, logId, epoch, lock, appends, io, compactor, health, counters);
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

  /**
   * After a failed open of a new log, deletes the first segment it created (it holds nothing but
   * its header and OWNER record, and nobody learned of it). Segments of an existing log stay: what
   * a failed open wrote there (an OWNER record, a compacted segment) is valid and read by the next
   * open.
   */
  private void removeCreatedSegment(Throwable failure) {
    if (createdSegment == null) {
      return;
    }
    try {
      if (Files.deleteIfExists(createdSegment)) {
        Directories.fsync(directory);
      }
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Finishes a roll that a crash interrupted after it created the last segment, before the seal of
   * {@code unsealed}, the segment before it, was durable: cuts off a torn seal and seals it, so
   * that from now on the loss of the last segment is detected. The last segment holds nothing the
   * segments before it do not (no append reached it), but it may be incomplete, so both stay; the
   * next roll deletes them. If the last segment was removed just now (its header was never
   * completely written), {@code unsealed} is the last segment again: only a torn seal is cut off.
   */
  private void completeRoll(LogReader.ScannedSegment unsealed, TornTail tornSeal,
      List<LogReader.ScannedSegment> segments) throws IOException {
    boolean followed = segments.size() >= 2
        && segments.get(segments.size() - 2).sequence() == unsealed.sequence();
    if (!followed && tornSeal == null) {
      return;
    }
    try (FileChannel ch = FileChannel.open(unsealed.file(), StandardOpenOption.WRITE)) {
      ch.truncate(unsealed.validEnd());
      if (followed) {
        ByteBuffer b = ByteBuffer.allocate(LogFormat.sealRecordSize());
        LogFormat.putSeal(b, new CRC32C(), unsealed.sequence() + 1);
        b.flip();
        for (long pos = unsealed.validEnd(); b.hasRemaining(); ) {
          pos += ch.write(b, pos);
        }
      }
      ch.force(true);
    }
    Path next = unsealed.file().resolveSibling(LogFormat.segmentFileName(unsealed.sequence() + 1));
    if (followed) {
      LOG.warn("Sealed state log segment {}{}: a crash interrupted the roll to {} after that"
              + " segment was created; nothing was lost",
          unsealed.file(),
          tornSeal == null ? "" : " (after cutting off its torn seal, " + tornSeal.bytes() + " bytes)",
          next.getFileName());
    } else {
      LOG.warn("Cut off the torn seal of state log segment {} ({} bytes): a crash interrupted the"
          + " roll to {}, which held nothing yet; nothing was lost", unsealed.file(),
          tornSeal.bytes(), next.getFileName());
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
