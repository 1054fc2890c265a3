package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.internal.log.CoordinatorEntry;
import dev.twophase.internal.log.LogInspector;
import dev.twophase.internal.log.LogSnapshot;
import dev.twophase.internal.log.SegmentedLog;
import dev.twophase.internal.log.Syncer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The default {@link StateLog}: append-only segment files in a local directory.
 *
 * <pre>{@code
 * try (FileStateLog log = FileStateLog.open(Path.of("/var/lib/app/twophase"))) {
 *   StateLog.CoordinatorLog partition0 = log.open("partition-0");
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Ownership.</b> Opening takes an exclusive OS lock on the file {@code LOCK} in the directory
 * for as long as the log is open, and appends an OWNER record with an epoch one higher than any
 * before. A second owner, in another process or in this one, is refused with a
 * {@link FencedException}. A failed open releases all it took and removes what it created. The
 * log's {@link #logId()} is created with it and kept in every segment.
 *
 * <p><b>Durability.</b> {@link CoordinatorLog#appendState} returns once its record is synced
 * ({@code fdatasync}). Appends of different coordinators on different threads share syncs (group
 * commit). If a write or sync fails, the outcome of the append is unknown: it throws a
 * {@link FatalTwoPhaseException}, the log becomes unusable, and it must be closed and reopened,
 * which recovers whatever reached the disk. A failed sync is never retried. A thread whose
 * interrupt flag is set may append (the flag is held back during the log's I/O and kept). An
 * interrupt that arrives while a thread blocks in a write or sync closes the file channel (a
 * property of {@code FileChannel}); the log then carries on on a standby descriptor opened in
 * advance and does the write or sync again, so the append returns normally (see
 * docs/state-log.md; {@link StateLogStats#standbyTakeovers()} counts it).
 *
 * <p><b>Recovery.</b> On open, the segments are read in order. A torn last record (what a crash in
 * the middle of an append that never returned leaves: a record written up to some byte, nothing
 * written after it) is cut off and logged at WARN; zeros the log wrote ahead of its appends (see
 * {@link Builder#preallocateBytes(long)}) are cut off too, at DEBUG. Anything else that fails a
 * check, also in the last record (a record written to its last byte whose checksum fails is
 * damage, not a tear), a foreign file or an unknown format version throws {@link
 * StateLogCorruptedException}, naming the file and offset and what to do; nothing is skipped or
 * cut. So does a missing segment: a roll seals the old segment with a record naming the new one
 * once the new one is durable, so a sealed newest segment (its successor was deleted) or a gap in
 * the sequence numbers is reported; a roll a crash interrupted before its seal is completed (see
 * docs/state-log.md, "Missing segments").
 *
 * <p><b>Inspection and statistics.</b> {@link #inspect(Path)} reads a log without owning it;
 * {@link #stats()} says what an open log has done. Everything the log logs goes to the logger
 * {@code dev.twophase.FileStateLog}.
 *
 * <p><b>Size.</b> When the active segment grows past {@link Builder#segmentBytes(long)}, the log
 * rolls to a new segment that holds only the live state (each coordinator's last state and highest
 * completion mark) and deletes the older ones; its size is bounded by what is live, not by history.
 *
 * <p>Thread-safe. The views returned by {@link #open(String)} are thread-safe too.
 */
@PublicEvolving
public final class FileStateLog implements StateLog {

  /** Default {@link Builder#segmentBytes(long)}: 16 MiB. */
  public static final long DEFAULT_SEGMENT_BYTES = 16L * 1024 * 1024;

  /** Smallest accepted {@link Builder#segmentBytes(long)}. */
  public static final long MIN_SEGMENT_BYTES = 4096;

  /** Default {@link Builder#preallocateBytes(long)}: 1 MiB. */
  public static final long DEFAULT_PREALLOCATE_BYTES = 1024 * 1024;

  private final SegmentedLog log;
  private final long segmentBytes;
  private final ConcurrentMap<String, View> views = new ConcurrentHashMap<>();

  private FileStateLog(SegmentedLog log, long segmentBytes) {
    this.log = log;
    this.segmentBytes = segmentBytes;
  }

  /**
   * Opens the log in {@code directory} with default settings, creating the directory if needed.
   *
   * @throws FencedException if another owner has the directory open
   * @throws StateLogCorruptedException if the log is damaged; the message says what to do
   * @throws FatalTwoPhaseException if the directory cannot be created, read or written (a file
   *     where it should be, no permission, a full or failing disk); the message says which. A
   *     failed open releases all it took and removes what it created
   */
  public static FileStateLog open(Path directory) {
    return builder(directory).build();
  }

  /**
   * Reads the log in {@code directory} without owning it: takes no lock, opens no {@code LOCK},
   * changes nothing, so it can run next to the owning process (in it too). An append in progress
   * at the end of the last segment shows as {@link StateLogSnapshot#tailInProgress()}; if the
   * owner compacts or cuts off a torn tail while this reads, it reads again (up to 10 times).
   * {@code dev.twophase.cli.StateLogTool} prints the same view.
   *
   * @throws StateLogCorruptedException if the log is damaged, as opening it would report (a torn
   *     tail is no damage: it shows as {@link StateLogSnapshot#tailInProgress()})
   * @throws java.io.UncheckedIOException if the directory cannot be read or holds no state log:
   *     its cause is a {@link java.nio.file.NoSuchFileException} if the directory is missing or
   *     holds no segment with a complete header, a {@link java.nio.file.NotDirectoryException}
   *     if it is not a directory
   */
  public static StateLogSnapshot inspect(Path directory) {
    LogSnapshot s = LogInspector.read(Objects.requireNonNull(directory, "directory"));
    List<StateLogSnapshot.Segment> segments = new ArrayList<>();
    for (LogSnapshot.Segment seg : s.segments()) {
      segments.add(new StateLogSnapshot.Segment(seg.file(), seg.sequence(), seg.sizeBytes(),
          seg.recordsEnd(), seg.records()));
    }
    Map<String, StateLogSnapshot.Coordinator> coordinators = new LinkedHashMap<>();
    for (LogSnapshot.Coordinator c : s.coordinators().values()) {
      LogSnapshot.State st = c.lastState();
      StateLogSnapshot.State state = st == null ? null : new StateLogSnapshot.State(
          st.checkpointId(), st.epoch(), st.payload(),
          new StateLogSnapshot.RecordPosition(st.file(), st.offset(), st.length()));
      coordinators.put(c.coordinatorId(), new StateLogSnapshot.Coordinator(
          c.coordinatorId(), state, c.lastCompletedCheckpointId()));
    }
    StateLogSnapshot.Tail tail = s.tailInProgress()
        .map(t -> new StateLogSnapshot.Tail(t.file(), t.offset(), t.bytes(), t.reason(),
            t.headerIncomplete()))
        .orElse(null);
    return new StateLogSnapshot(s.directory(), s.logId(), s.ownerEpoch(), segments, coordinators,
        tail);
  }

  /** A builder for a log in {@code directory}. */
  public static Builder builder(Path directory) {
    return new Builder(directory);
  }

  /** Settings of a {@link FileStateLog}. */
  public static final class Builder {
    private final Path directory;
    private long segmentBytes = DEFAULT_SEGMENT_BYTES;
    private long preallocateBytes = DEFAULT_PREALLOCATE_BYTES;
    private Syncer syncer = Syncer.FDATASYNC;
    private FaultInjector faultInjector = FaultInjector.none();

    private Builder(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
    }

    /**
     * The size past which the active segment is rolled and the log compacted; default 16 MiB, at
     * least 4096. If the live state alone is bigger, the log rolls only once as much history as
     * live state has accumulated, so that it does not compact on every append.
     */
    public Builder segmentBytes(long segmentBytes) {
      if (segmentBytes < MIN_SEGMENT_BYTES) {
        throw new IllegalArgumentException(
            "segmentBytes must be >= " + MIN_SEGMENT_BYTES + ", was " + segmentBytes);
      }
      this.segmentBytes = segmentBytes;
      return this;
    }

    /**
     * How far ahead of its appends the active segment is extended with zeros; default 1 MiB, 0
     * turns it off, otherwise at least 4096 (and never more than {@link #segmentBytes(long)}). The
     * zeros never take more than half of the file system's free space: on a nearly full disk the
     * space goes to records.
     *
     * <p>A sync after an append that grows the file must also write the file's size (and, on a
     * journaling file system, commit the journal); a sync after an append into space already
     * written needs only the data. On ext4 that made a lone appender ~45% faster and 64 appenders
     * ~20% faster ({@code GroupCommitPairs}, see docs/benchmarks.md). The zeros are cut off when a
     * segment is rolled or the log closed; after a crash, the next open cuts them. Turn it off on copy-on-write file systems (btrfs, ZFS),
     * where writing into pre-written space allocates new blocks anyway and the zeros only cost.
     */
    public Builder preallocateBytes(long preallocateBytes) {
      if (preallocateBytes != 0 && preallocateBytes < MIN_SEGMENT_BYTES) {
        throw new IllegalArgumentException("preallocateBytes must be 0 (off) or >= "
            + MIN_SEGMENT_BYTES + ", was " + preallocateBytes);
      }
      this.preallocateBytes = preallocateBytes;
      return this;
    }

    /**
     * The testing knobs of crash and fault tests (default {@link FaultInjector#none()}). The log
     * calls it at two points:
     *
     * <ul>
     *   <li>{@link ProtocolPoint#DURING_LOG_APPEND}: the records of appends waiting for their sync
     *       have just been written to the segment file and that sync is next (after the
     *       group-commit leader's write, and after the write of a roll that follows an append):
     *       once per sync, which may cover the records of several coordinators, and also for the
     *       start-up record each coordinator appends. Not for completion marks, which are not
     *       synced, nor for the OWNER record of an open. A JVM halted here keeps the records whole
     *       in the file (the page cache survives a killed process); to model a power loss in the
     *       middle of the append, cut the file inside the last record (see {@link
     *       #inspect(Path)} and {@link StateLogSnapshot.RecordPosition}).
     *   <li>{@link ProtocolPoint#DURING_COMPACTION}: a roll's new segment, holding the live state,
     *       is written, not yet synced, and the older segments are still there.
     * </ul>
     *
     * <p>An exception the injector throws fails the write or sync in progress: the log turns
     * unusable, as after any failed write or sync.
     */
    public Builder faultInjector(FaultInjector faultInjector) {
      this.faultInjector = Objects.requireNonNull(faultInjector, "faultInjector");
      return this;
    }

    /** For tests: how segments are synced. */
    Builder syncer(Syncer syncer) {
      this.syncer = Objects.requireNonNull(syncer, "syncer");
      return this;
    }

    /**
     * Opens the log: creates the directory if needed, claims it, recovers it and appends a new
     * owner epoch.
     *
     * @throws FencedException if another owner has the directory open
     * @throws StateLogCorruptedException if the log is damaged; the message says what to do
     * @throws FatalTwoPhaseException if the directory cannot be created, read or written (a file
     *     where it should be, no permission, a full or failing disk); the message says which. A
     *     failed open releases all it took and removes what it created
     */
    public FileStateLog build() {
      return new FileStateLog(
          SegmentedLog.open(directory, segmentBytes, Math.min(preallocateBytes, segmentBytes), syncer,
              faultInjector),
          segmentBytes);
    }
  }

  /** The log's directory, absolute. */
  public Path directory() {
    return log.directory();
  }

  /** The configured segment size threshold. */
  public long segmentBytes() {
    return segmentBytes;
  }

  /**
   * The epoch of this owner of the directory: higher than that of every earlier owner, and the
   * epoch of every coordinator opened on it.
   */
  public long ownerEpoch() {
    return log.ownerEpoch();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Stored in the header of every segment file (bytes 20 to 27), written when the log's first
   * segment is created and copied by every roll; segments with different ids in one directory
   * are reported as corruption.
   */
  @Override
  public String logId() {
    return log.logId();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the id is empty, longer than 255 UTF-8 bytes or not valid
   *     Unicode text
   * @throws CoordinatorHeldException if the id is already open on this log
   * @throws FencedException if the log is closed
   */
  @Override
  public CoordinatorLog open(String coordinatorId) {
    StateLog.checkCoordinatorId(coordinatorId);
    CoordinatorEntry entry = log.entry(coordinatorId);
    View view = new View(entry);
    if (views.putIfAbsent(coordinatorId, view) != null) {
      throw new CoordinatorHeldException(coordinatorId, "this process", log.ownerEpoch(),
          "coordinator '"
              + coordinatorId
              + "' is already open on state log "
              + log.directory()
              + ": close its CoordinatorLog first; two coordinators must never share an id");
    }
    return view;
  }

  /**
   * Rolls to a new segment holding only the live state and deletes the older segments now, as the
   * log does by itself when the active segment outgrows {@link Builder#segmentBytes(long)}.
   *
   * @throws FatalTwoPhaseException if it fails; the log is then unusable
   * @throws FencedException if the log is closed
   */
  public void compact() {
    log.compact();
  }

  /** Syncs what was written, closes the files and releases the directory. Idempotent. */
  @Override
  public void close() {
    log.close();
  }

  /**
   * What this log has done since it was opened: appends, syncs (and so how many appends shared a
   * sync), compactions, standby takeovers after interrupts. Cheap (no lock, no I/O); also after
   * {@link #close()}, when the counts no longer change.
   */
  public StateLogStats stats() {
    return log.stats();
  }

  @Override
  public String toString() {
    return "FileStateLog{" + log.directory() + ", logId=" + log.logId()
        + ", ownerEpoch=" + log.ownerEpoch()
        + (log.isClosed() ? ", closed" : "") + "}";
  }

  /** One coordinator's view. */
  private final class View implements CoordinatorLog {
    private final CoordinatorEntry entry;
    private final AtomicBoolean closed = new AtomicBoolean();

    View(CoordinatorEntry entry) {
      this.entry = entry;
    }

    @Override
    public String coordinatorId() {
      return entry.coordinatorId();
    }

    @Override
    public long ownerEpoch() {
      return log.ownerEpoch();
    }

    @Override
    public String logId() {
      return log.logId();
    }

    @Override
    public StoredState lastState() {
      return entry.lastState();
    }

    @Override
    public long lastCompletedCheckpointId() {
      return entry.lastCompletedCheckpointId();
    }

    @Override
    public void appendState(long checkpointId, byte[] payload) {
      Objects.requireNonNull(payload, "payload");
      checkAppend(checkpointId);
      log.appendState(entry, checkpointId, payload);
    }

    @Override
    public void appendCompletion(long checkpointId) {
      checkAppend(checkpointId);
      log.appendCompletion(entry, checkpointId);
    }

    private void checkAppend(long checkpointId) {
      if (checkpointId < 0) {
        throw new IllegalArgumentException("checkpointId must be >= 0, was " + checkpointId);
      }
      if (closed.get()) {
        throw new FencedException(
            "coordinator log '"
                + entry.coordinatorId()
                + "' on "
                + log.directory()
                + " is closed: it cannot append checkpoint "
                + checkpointId,
            null,
            checkpointId,
            null);
      }
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        views.remove(entry.coordinatorId(), this);
      }
    }

    @Override
    public String toString() {
      return "CoordinatorLog{'" + entry.coordinatorId() + "' on " + log.directory() + "}";
    }
  }
}
