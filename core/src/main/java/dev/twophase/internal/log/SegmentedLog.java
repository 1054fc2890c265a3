package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StateLogStats;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of {@code FileStateLog}: one owner's segments in one directory. Where to find what:
 *
 * <ul>
 *   <li>{@link LogFormat}: the bytes on disk; {@link LogReader}: reading them back, and the rules
 *       that tell a torn tail from damage.
 *   <li>{@link LogOpening}: opening a log (lock, read, cut a torn tail, new owner epoch).
 *   <li>{@link AppendPath}: appends, staging and group commit ({@link GroupSync}).
 *   <li>{@link Compactor}: creating segments and rolling to a compacted one.
 *   <li>{@link Segment} and {@link SegmentIo}: a segment file with its standby descriptor, and I/O
 *       on it that survives interrupts.
 *   <li>{@link LogHealth}: closed, or unusable after a failed write or sync.
 * </ul>
 */
@Internal
public final class SegmentedLog implements AutoCloseable {

  /**
   * The logger of every class of the engine, under the public name users configure (listed in
   * docs/state-log.md).
   */
  static final Logger LOG = LoggerFactory.getLogger("dev.twophase.FileStateLog");

  private final Path directory;
  private final String logId;
  private final long epoch;
  private final DirectoryLock lock;
  private final AppendPath appends;
  private final SegmentIo io;
  private final Compactor compactor;
  private final LogHealth health;
  private final LogCounters counters;

  SegmentedLog(Path directory, String logId, long epoch, DirectoryLock lock, AppendPath appends, SegmentIo io,
      Compactor compactor, LogHealth health, LogCounters counters) {
    this.directory = directory;
    this.logId = logId;
    this.epoch = epoch;
    this.lock = lock;
    this.appends = appends;
    this.io = io;
    this.compactor = compactor;
    this.health = health;
    this.counters = counters;
  }

  /**
   * Opens (creating if needed) the log in {@code directory}, claims it with an OS lock, recovers it
   * and appends a durable OWNER record with a new epoch.
   *
   * @throws FencedException if another owner holds the directory
   * @throws StateLogCorruptedException if the log is damaged
   * @throws FatalTwoPhaseException if an I/O operation failed
   */
  public static SegmentedLog open(Path directory, long segmentBytes, long preallocateBytes,
      Syncer syncer, FaultInjector faults) {
    return LogOpening.open(directory, segmentBytes, preallocateBytes, syncer, faults);
  }

  public Path directory() {
    return directory;
  }

  public long ownerEpoch() {
    return epoch;
  }

  /** The log's id, from its segment headers. */
  public String logId() {
    return logId;
  }

  /** The entry of {@code coordinatorId}, created empty if the log holds nothing for it. */
  public CoordinatorEntry entry(String coordinatorId) {
    return appends.entry(coordinatorId);
  }

  /**
   * Appends a STATE record for {@code entry} and returns once it is durable.
   *
   * @throws IllegalArgumentException if {@code checkpointId} is below the entry's last state
   */
  public void appendState(CoordinatorEntry entry, long checkpointId, byte[] payload) {
    appends.appendState(entry, checkpointId, payload);
  }

  /** Appends a COMPLETED record for {@code entry} if it raises its mark. Not synced. */
  public void appendCompletion(CoordinatorEntry entry, long checkpointId) {
    appends.appendCompletion(entry, checkpointId);
  }

  /** Rolls to a new segment holding only the live state now, and deletes the older ones. */
  public void compact() {
    appends.compact();
  }

  /** What the log has done since it was opened. */
  public StateLogStats stats() {
    return counters.snapshot();
  }

  public boolean isClosed() {
    return health.isClosed();
  }

  /** Syncs what was written, closes the segments and releases the directory. Idempotent. */
  @Override
  public void close() {
    if (!health.markClosed()) {
      return;
    }
    appends.close(() -> {
      io.shutDown();
      compactor.closeRetired();
      appends.active().closeChannels();
      lock.close();
    });
    LOG.info("Closed state log {} (log id {}, owner epoch {})", directory, logId, epoch);
  }

  static void closeQuietly(AutoCloseable c) {
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
