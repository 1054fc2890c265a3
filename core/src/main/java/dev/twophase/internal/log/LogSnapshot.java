package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@link LogInspector#read} found in a state log directory, without owning it. The public
 * view, {@code dev.twophase.StateLogSnapshot}, is made from it.
 *
 * @param directory the directory read
 * @param logId the log's id (from its segment headers)
 * @param ownerEpoch the highest owner epoch in the log, 0 if none
 * @param segments the segment files in sequence order
 * @param coordinators per coordinator id, in id order: what the log holds for it
 * @param tailInProgress an incomplete record or segment header at the end of the last segment (an
 *     append in progress, or a torn write the next owner will cut off), if any; zeros after the
 *     last record are space the owner wrote ahead of its appends, not a tail in progress
 */
@Internal
public record LogSnapshot(
    Path directory,
    String logId,
    long ownerEpoch,
    List<Segment> segments,
    Map<String, Coordinator> coordinators,
    Optional<TornTail> tailInProgress) {

  public LogSnapshot {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(logId, "logId");
    segments = List.copyOf(segments);
    coordinators = Collections.unmodifiableMap(new TreeMap<>(coordinators));
    Objects.requireNonNull(tailInProgress, "tailInProgress");
  }

  /** The total size of the segment files. */
  public long totalBytes() {
    long total = 0;
    for (Segment s : segments) {
      total += s.sizeBytes();
    }
    return total;
  }

  /**
   * One segment file.
   *
   * @param file the file
   * @param sequence its sequence number
   * @param sizeBytes its size when read (of the last segment, zeros written ahead included)
   * @param recordsEnd where its intact records end
   * @param records the intact records in it
   */
  public record Segment(Path file, long sequence, long sizeBytes, long recordsEnd, long records) {}

  /**
   * What the log holds for one coordinator.
   *
   * @param coordinatorId the id
   * @param lastState its last STATE record, or null if none
   * @param lastCompletedCheckpointId its highest completion mark, 0 if none
   */
  public record Coordinator(String coordinatorId, State lastState, long lastCompletedCheckpointId) {

    public Optional<State> lastStateIfAny() {
      return Optional.ofNullable(lastState);
    }
  }

  /**
   * A STATE record.
   *
   * @param checkpointId its checkpoint id
   * @param epoch the owner epoch that wrote it
   * @param payload the coordinator's encoded state (a copy)
   * @param file the segment holding it
   * @param offset where the record starts in {@code file}
   * @param length the record's length, frame and body
   */
  public record State(long checkpointId, long epoch, byte[] payload, Path file, long offset,
      int length) {

    public State {
      payload = payload.clone();
      Objects.requireNonNull(file, "file");
    }

    @Override
    public byte[] payload() {
      return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof State s
          && s.checkpointId == checkpointId
          && s.epoch == epoch
          && Arrays.equals(s.payload, payload)
          && s.file.equals(file)
          && s.offset == offset
          && s.length == length;
    }

    @Override
    public int hashCode() {
      return Objects.hash(checkpointId, epoch, Arrays.hashCode(payload), file, offset, length);
    }

    @Override
    public String toString() {
      return "State[checkpointId=" + checkpointId + ", epoch=" + epoch + ", payload="
          + payload.length + " bytes, at " + file.getFileName() + ":" + offset + "+" + length + "]";
    }
  }
}
