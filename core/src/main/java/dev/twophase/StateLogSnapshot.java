package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link FileStateLog} directory holds, read without owning it: from {@link
 * FileStateLog#inspect(Path)}. Immutable. The coordinators' payloads are returned as the bytes
 * they appended; their format is the coordinator's.
 *
 * <p>Positions ({@link RecordPosition}) say where a record is in its segment file, for tools and
 * tests; for example, a crash test models a power loss in the middle of the last append by
 * cutting the file inside the coordinator's last STATE record.
 */
@PublicEvolving
public final class StateLogSnapshot {

  private final Path directory;
  private final String logId;
  private final long ownerEpoch;
  private final List<Segment> segments;
  private final Map<String, Coordinator> coordinators;
  private final Tail tailInProgress;

  StateLogSnapshot(Path directory, String logId, long ownerEpoch, List<Segment> segments,
      Map<String, Coordinator> coordinators, Tail tailInProgress) {
    this.directory = directory;
    this.logId = logId;
    this.ownerEpoch = ownerEpoch;
    this.segments = List.copyOf(segments);
    this.coordinators = Collections.unmodifiableMap(coordinators);
    this.tailInProgress = tailInProgress;
  }

  /** The directory read, absolute. */
  public Path directory() {
    return directory;
  }

  /** The log's id ({@link StateLog#logId()}). */
  public String logId() {
    return logId;
  }

  /** The highest owner epoch in the log: that of its last (or current) owner. */
  public long ownerEpoch() {
    return ownerEpoch;
  }

  /** The segment files, in sequence order. */
  public List<Segment> segments() {
    return segments;
  }

  /** The total size of the segment files when read. */
  public long totalBytes() {
    long total = 0;
    for (Segment s : segments) {
      total += s.sizeBytes();
    }
    return total;
  }

  /**
   * Per coordinator id, in id order, what the log holds for it: every coordinator with a STATE
   * record or a completion mark in the log.
   */
  public Map<String, Coordinator> coordinators() {
    return coordinators;
  }

  /** What the log holds for {@code coordinatorId}, if anything. */
  public Optional<Coordinator> coordinator(String coordinatorId) {
    return Optional.ofNullable(coordinators.get(coordinatorId));
  }

  /**
   * An incomplete record or segment header at the end of the last segment, if any: an append in
   * progress (the log is live), or a torn append its next owner will cut off. Zeros after the last
   * record are space the owner writes ahead of its appends, not a tail in progress.
   */
  public Optional<Tail> tailInProgress() {
    return Optional.ofNullable(tailInProgress);
  }

  @Override
  public String toString() {
    return "StateLogSnapshot{" + directory + ", logId=" + logId + ", ownerEpoch=" + ownerEpoch
        + ", " + segments.size() + " segment(s), " + coordinators.size() + " coordinator(s)"
        + (tailInProgress == null ? "" : ", tail in progress") + "}";
  }

  /** One segment file. */
  public static final class Segment {
    private final Path file;
    private final long sequence;
    private final long sizeBytes;
    private final long recordsEnd;
    private final long records;

    Segment(Path file, long sequence, long sizeBytes, long recordsEnd, long records) {
      this.file = file;
      this.sequence = sequence;
      this.sizeBytes = sizeBytes;
      this.recordsEnd = recordsEnd;
      this.records = records;
    }

    public Path file() {
      return file;
    }

    /** Its sequence number (the number in its file name). */
    public long sequence() {
      return sequence;
    }

    /**
     * Its size when read; of the last segment of a live log that includes the zeros written
     * ahead of the appends.
     */
    public long sizeBytes() {
      return sizeBytes;
    }

    /**
     * Where its intact records end: what follows (to {@link #sizeBytes()}) is the zeros written
     * ahead of the appends, or a tail in progress. Cutting the file before this offset models a
     * power loss while the segment was written.
     */
    public long recordsEnd() {
      return recordsEnd;
    }

    /** The intact records in it. */
    public long records() {
      return records;
    }

    @Override
    public String toString() {
      return "Segment{" + file.getFileName() + ", " + sizeBytes + " bytes, " + records
          + " records}";
    }
  }

  /** What the log holds for one coordinator. */
  public static final class Coordinator {
    private final String coordinatorId;
    private final State lastState;
    private final long lastCompletedCheckpointId;

    Coordinator(String coordinatorId, State lastState, long lastCompletedCheckpointId) {
      this.coordinatorId = coordinatorId;
      this.lastState = lastState;
      this.lastCompletedCheckpointId = lastCompletedCheckpointId;
    }

    public String coordinatorId() {
      return coordinatorId;
    }

    /** Its last STATE record (what {@link StateLog.CoordinatorLog#lastState()} would return), if any. */
    public Optional<State> lastState() {
      return Optional.ofNullable(lastState);
    }

    /** Its highest completion mark, 0 if none. */
    public long lastCompletedCheckpointId() {
      return lastCompletedCheckpointId;
    }

    @Override
    public String toString() {
      return "Coordinator{'" + coordinatorId + "', lastState=" + lastState
          + ", lastCompletedCheckpointId=" + lastCompletedCheckpointId + "}";
    }
  }

  /** A coordinator's STATE record. */
  public static final class State {
    private final long checkpointId;
    private final long epoch;
    private final byte[] payload;
    private final RecordPosition position;

    State(long checkpointId, long epoch, byte[] payload, RecordPosition position) {
      this.checkpointId = checkpointId;
      this.epoch = epoch;
      this.payload = payload.clone();
      this.position = position;
    }

    public long checkpointId() {
      return checkpointId;
    }

    /** The owner epoch of the owner that first wrote it (compaction keeps it). */
    public long epoch() {
      return epoch;
    }

    /** A copy of the payload, as the coordinator appended it. */
    public byte[] payload() {
      return payload.clone();
    }

    /** Where the record is. */
    public RecordPosition position() {
      return position;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof State state
          && state.checkpointId == checkpointId
          && state.epoch == epoch
          && Arrays.equals(state.payload, payload)
          && state.position.equals(position);
    }

    @Override
    public int hashCode() {
      return Objects.hash(checkpointId, epoch, Arrays.hashCode(payload), position);
    }

    @Override
    public String toString() {
      return "State{checkpointId=" + checkpointId + ", epoch=" + epoch + ", payload="
          + payload.length + " bytes, " + position + "}";
    }
  }

  /**
   * Where a record is: {@code length} bytes (its frame and body) from {@code offset} in {@code
   * file}. Cutting the file anywhere in {@code [offset, offset + length)} (truncating it there, or
   * writing zeros from there to the record's end) leaves what a crash in the middle of that
   * record's append leaves: the log's next owner cuts the record off.
   */
  public static final class RecordPosition {
    private final Path file;
    private final long offset;
    private final int length;

    RecordPosition(Path file, long offset, int length) {
      this.file = file;
      this.offset = offset;
      this.length = length;
    }

    public Path file() {
      return file;
    }

    public long offset() {
      return offset;
    }

    public int length() {
      return length;
    }

    /** The offset just after the record. */
    public long end() {
      return offset + length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof RecordPosition recordPosition
          && recordPosition.file.equals(file)
          && recordPosition.offset == offset
          && recordPosition.length == length;
    }

    @Override
    public int hashCode() {
      return Objects.hash(file, offset, length);
    }

    @Override
    public String toString() {
      return file.getFileName() + " at " + offset + " (" + length + " bytes)";
    }
  }

  /** An incomplete end of the last segment. */
  public static final class Tail {
    private final Path file;
    private final long offset;
    private final long bytes;
    private final String reason;
    private final boolean segmentHeaderIncomplete;

    Tail(Path file, long offset, long bytes, String reason, boolean segmentHeaderIncomplete) {
      this.file = file;
      this.offset = offset;
      this.bytes = bytes;
      this.reason = reason;
      this.segmentHeaderIncomplete = segmentHeaderIncomplete;
    }

    public Path file() {
      return file;
    }

    /** Where the incomplete record (or header) starts: the intact records end here. */
    public long offset() {
      return offset;
    }

    /** The bytes from {@link #offset()} to the end of the file. */
    public long bytes() {
      return bytes;
    }

    /** What was found, in words. */
    public String reason() {
      return reason;
    }

    /** Whether the segment's header itself is incomplete (the segment holds nothing yet). */
    public boolean segmentHeaderIncomplete() {
      return segmentHeaderIncomplete;
    }

    @Override
    public String toString() {
      return "Tail{" + file.getFileName() + " at " + offset + ", " + bytes + " bytes: " + reason
          + "}";
    }
  }
}
