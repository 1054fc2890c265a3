package dev.twophase.testing;

import dev.twophase.FileStateLog;
import dev.twophase.StateLogSnapshot;
import dev.twophase.annotation.Experimental;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * What a power loss in the middle of a {@link FileStateLog} write leaves, for crash tests. A test
 * that halts a JVM inside a log write (at {@link dev.twophase.ProtocolPoint#DURING_LOG_APPEND} or
 * {@link dev.twophase.ProtocolPoint#DURING_COMPACTION}) has killed a process, whose writes survive
 * in the page cache: the record is whole on disk. These methods cut the file as a power loss could,
 * through the log's public read-only view ({@link FileStateLog#inspect}), while no process has the
 * log open.
 */
@Experimental
public final class PowerLoss {

  private PowerLoss() {}

  /**
   * Cuts the log in {@code directory} in the middle of its newest state record, and everything
   * after it: the append in flight was torn, and the writes after it were lost.
   *
   * @return whether there was a state record to cut
   */
  public static boolean tearLastAppend(Path directory) throws IOException {
    StateLogSnapshot log = FileStateLog.inspect(directory);
    StateLogSnapshot.RecordPosition newest = null;
    long newestSegment = -1;
    for (StateLogSnapshot.Coordinator c : log.coordinators().values()) {
      StateLogSnapshot.RecordPosition at = c.lastState().map(StateLogSnapshot.State::position).orElse(null);
      if (at == null) {
        continue;
      }
      long segment = sequenceOf(log, at.file());
      if (newest == null || segment > newestSegment || (segment == newestSegment && at.offset() > newest.offset())) {
        newest = at;
        newestSegment = segment;
      }
    }
    if (newest == null) {
      return false;
    }
    truncate(newest.file(), newest.offset() + newest.length() / 2);
    return true;
  }

  /**
   * Cuts the newest segment of the log in {@code directory} in the middle of its records: a
   * compaction was writing it when the power went.
   */
  public static void tearLastSegment(Path directory) throws IOException {
    List<StateLogSnapshot.Segment> segments = FileStateLog.inspect(directory).segments();
    StateLogSnapshot.Segment last = segments.get(segments.size() - 1);
    truncate(last.file(), last.recordsEnd() / 2);
  }

  private static long sequenceOf(StateLogSnapshot log, Path file) {
    for (StateLogSnapshot.Segment s : log.segments()) {
      if (s.file().equals(file)) {
        return s.sequence();
      }
    }
    throw new IllegalStateException("no segment " + file + " in " + log);
  }

  private static void truncate(Path file, long size) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size);
      channel.force(true);
    }
  }
}
