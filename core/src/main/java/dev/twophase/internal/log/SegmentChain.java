package dev.twophase.internal.log;

import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The rules that hold across the segments of a log, which no single segment's scan can check: no
 * gap in the sequence numbers, and those of {@link LogFormat} "Seals". A missing segment throws
 * {@link StateLogCorruptedException}, saying what the operator does about it.
 */
final class SegmentChain {

  private SegmentChain() {}

  /**
   * A gap in the sequence numbers is a missing segment: a roll creates the next number and
   * deletes the older segments oldest first, so no crash leaves one.
   */
  static void checkNoGaps(List<LogReader.SegmentFile> files) {
    for (int i = 1; i < files.size(); i++) {
      long before = files.get(i - 1).sequence();
      long after = files.get(i).sequence();
      if (after != before + 1) {
        Path missing = files.get(i).file().resolveSibling(LogFormat.segmentFileName(before + 1));
        throw new StateLogCorruptedException("state log segment " + missing.getFileName()
            + (after == before + 2 ? "" : " (and the " + (after - before - 2) + " after it)")
            + " is missing, between " + files.get(i - 1).file().getFileName() + " and "
            + files.get(i).file().getFileName() + ": a roll creates the next segment and deletes"
            + " the older ones oldest first, so no crash leaves a gap; the file was deleted or"
            + " moved. " + missingSteps(), missing, 0);
      }
    }
  }

  /**
   * The rules of {@link LogFormat} "Seals", once every segment is read: a sealed last segment
   * means the newest segment is missing; an unsealed segment (format 3) may be followed by one
   * segment only. Returns the segment before the last if it is unsealed (a roll a crash
   * interrupted), else null.
   */
  static LogReader.ScannedSegment checkSeals(
      List<LogReader.ScannedSegment> segments, TornTail torn) throws IOException {
    int n = segments.size();
    if (n == 0) {
      return null;
    }
    LogReader.ScannedSegment last = segments.get(n - 1);
    boolean lastEmpty = torn != null && torn.headerIncomplete() && torn.file().equals(last.file());
    if (lastEmpty && n >= 2 && segments.get(n - 2).sealed()) {
      LogReader.ScannedSegment sealed = segments.get(n - 2);
      throw new StateLogCorruptedException("state log segment " + sealed.file().getFileName()
          + " is sealed, naming " + last.file().getFileName() + " as the segment that holds"
          + " everything it held, but that segment's header is incomplete: a roll syncs the new"
          + " segment completely before it seals the old one, so " + last.file().getFileName()
          + " was damaged or cut afterwards, and with it the log's newest records. "
          + missingSteps(), last.file(), 0);
    }
    if (last.sealed()) {
      Path next = last.file().resolveSibling(LogFormat.segmentFileName(last.sequence() + 1));
      if (Files.exists(next)) {
        // A live owner rolled while this read: the listing is out of date.
        throw new LogReader.SegmentChangedException(
            "segment " + next + " was created while the log was read");
      }
      throw new StateLogCorruptedException("state log segment " + next.getFileName()
          + " is missing: the newest segment, " + last.file().getFileName() + ", is sealed, naming"
          + " it as the segment that holds everything it held and the records written after it"
          + " (a roll creates and syncs the new segment before it seals the old one, so no crash"
          + " leaves a sealed last segment); the file was deleted or moved, and with it the"
          + " decisions of the log's newest checkpoints. " + missingSteps(), next, 0);
    }
    LogReader.ScannedSegment unsealed = null;
    for (int i = 0; i < n - 1; i++) {
      LogReader.ScannedSegment seg = segments.get(i);
      if (seg.version() < LogFormat.SEALED_SINCE_VERSION || seg.sealed()) {
        continue; // format 2 has no seals
      }
      if (i < n - 2) {
        throw new StateLogCorruptedException("state log segment " + seg.file().getFileName()
            + " is not sealed, yet " + (n - 1 - i) + " segments follow it: a roll seals the old"
            + " segment before anything is appended to the new one, so the segment was cut or"
            + " damaged after it was sealed. " + missingSteps(), seg.file(), seg.validEnd());
      }
      unsealed = seg;
    }
    return unsealed;
  }

  /** What the operator does about a missing segment; nothing was changed. */
  private static String missingSteps() {
    return "Nothing was changed. To recover: stop, and copy the log directory aside; put the"
        + " missing segment back, or restore a copy of the directory at least as recent as the"
        + " loss (a file-system snapshot taken after the last append, say). Without it, the log"
        + " would open at an older checkpoint and recovery would abort what the newer ones decided:"
        + " finish the coordinators' transactions by hand and start on a new log, as for damage"
        + " in a segment that is not the last one (see \"Torn tail or corruption\" in"
        + " docs/state-log.md)";
  }
}
