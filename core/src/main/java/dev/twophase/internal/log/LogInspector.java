package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Read-only inspection of a state log directory, behind {@code FileStateLog.inspect}. It takes no
 * lock and changes nothing, so it may run while the owner is live: an incomplete end of the last
 * segment is reported as {@link LogSnapshot#tailInProgress()}, not cut off and not an error; if
 * the owner compacts or cuts a tail while it reads, it reads again (up to 10 times).
 */
@Internal
public final class LogInspector {

  private static final int ATTEMPTS = 10;

  private LogInspector() {}

  /**
   * Reads the log in {@code directory}.
   *
   * @throws StateLogCorruptedException if the log is damaged before its tail, is not a twophase
   *     state log, has an unknown format version or misses a segment
   * @throws UncheckedIOException if the directory cannot be read, or holds no state log: a {@link
   *     NoSuchFileException} if it is not there or holds no segment with a complete header, a
   *     {@link NotDirectoryException} if it is not a directory
   */
  public static LogSnapshot read(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new UncheckedIOException(
          Files.exists(dir)
              ? new NotDirectoryException(dir.toString())
              : new NoSuchFileException(dir.toString(), null, "does not exist"));
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return readOnce(dir);
      } catch (LogReader.SegmentChangedException e) {
        // A live owner cut off a torn tail while starting: read again.
        if (attempt >= ATTEMPTS) {
          throw new UncheckedIOException(
              "state log " + dir + " kept changing while it was read", e);
        }
      } catch (NoSuchFileException e) {
        // A live owner compacted and deleted a segment between listing and reading: read again.
        if (attempt >= ATTEMPTS || e.getFile() == null || dir.toString().equals(e.getFile())) {
          throw new UncheckedIOException(e.getMessage(), e);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("could not read state log " + dir + ": " + e, e);
      }
    }
  }

  private static LogSnapshot readOnce(Path dir) throws IOException {
    Positions index = new Positions();
    LogReader.Result result = LogReader.scan(dir, index);
    if (result.logId() == null) {
      throw new NoSuchFileException(dir.toString(), null, result.segments().isEmpty()
          ? "holds no state log segment (segment-<20 digits>.log)"
          : "holds only a segment whose header is incomplete (a log being created, or whose"
              + " creation was interrupted): no state log yet");
    }
    List<LogSnapshot.Segment> segments = new ArrayList<>();
    for (LogReader.ScannedSegment s : result.segments()) {
      segments.add(
          new LogSnapshot.Segment(s.file(), s.sequence(), s.size(), s.validEnd(), s.records()));
    }
    Map<String, LogSnapshot.Coordinator> coordinators = new TreeMap<>();
    for (CoordinatorEntry e : index.entries()) {
      CoordinatorEntry.State s = e.state();
      LogSnapshot.State state = null;
      if (s != null) {
        Positions.At at = index.lastState.get(e.coordinatorId());
        state = new LogSnapshot.State(s.checkpointId, s.epoch, s.payload, at.file, at.offset,
            at.length);
      }
      coordinators.put(
          e.coordinatorId(),
          new LogSnapshot.Coordinator(e.coordinatorId(), state, e.lastCompletedCheckpointId()));
    }
    return new LogSnapshot(
        dir,
        result.logId(),
        index.maxEpoch(),
        segments,
        coordinators,
        // Zeros after the last record are space written ahead of the appends, not an append.
        Optional.ofNullable(result.tornTail()).filter(t -> !t.zeros()));
  }

  /** The log's index, and where each coordinator's last STATE record is. */
  private static final class Positions extends LogIndex {
    record At(Path file, long offset, int length) {}

    final Map<String, At> lastState = new HashMap<>();

    @Override
    public void state(String coordinatorId, long checkpointId, long epoch, byte[] payload,
        Path file, long offset, int length) {
      super.state(coordinatorId, checkpointId, epoch, payload, file, offset, length);
      lastState.put(coordinatorId, new At(file, offset, length));
    }
  }
}
