package dev.twophase.internal.log;

import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Read-only inspection of a state log directory, for operators. It takes no lock and changes
 * nothing, so it may run while the owner is live: an incomplete end of the last segment is
 * reported as {@link LogSnapshot#tailInProgress()}, not cut off and not an error.
 */
public final class LogInspector {

  private static final int ATTEMPTS = 10;

  private LogInspector() {}

  /**
   * Reads the log in {@code directory}.
   *
   * @throws StateLogCorruptedException if the log is damaged before its tail, is not a twophase
   *     state log, or has an unknown format version
   * @throws UncheckedIOException if the directory cannot be read (a {@link NoSuchFileException} or
   *     {@link NotDirectoryException} if it is not there)
   */
  public static LogSnapshot read(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new UncheckedIOException(
          Files.exists(dir)
              ? new NotDirectoryException(dir.toString())
              : new NoSuchFileException(dir.toString(), null, "no state log directory"));
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return readOnce(dir);
      } catch (NoSuchFileException | LogReader.SegmentChangedException e) {
        // A live owner compacted and deleted a segment between listing and reading, or cut off a
        // torn tail while starting: read again.
        if (attempt >= ATTEMPTS) {
          throw new UncheckedIOException(
              "state log " + dir + " kept changing while it was read", e);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("could not read state log " + dir + ": " + e, e);
      }
    }
  }

  private static LogSnapshot readOnce(Path dir) throws IOException {
    LogIndex index = new LogIndex();
    LogReader.Result result = LogReader.scan(dir, index);
    List<LogSnapshot.Segment> segments = new ArrayList<>();
    for (LogReader.ScannedSegment s : result.segments()) {
      segments.add(new LogSnapshot.Segment(s.file(), s.sequence(), s.size(), s.records()));
    }
    Map<String, LogSnapshot.Coordinator> coordinators = new TreeMap<>();
    for (CoordinatorEntry e : index.entries()) {
      CoordinatorEntry.State s = e.state();
      LogSnapshot.State state =
          s == null ? null : new LogSnapshot.State(s.checkpointId, s.epoch, s.payload);
      coordinators.put(
          e.coordinatorId(),
          new LogSnapshot.Coordinator(e.coordinatorId(), state, e.lastCompletedCheckpointId()));
    }
    return new LogSnapshot(
        dir,
        index.maxEpoch(),
        segments,
        coordinators,
        // Zeros after the last record are space written ahead of the appends, not an append.
        Optional.ofNullable(result.tornTail()).filter(t -> !t.zeros()));
  }
}
