package dev.twophase.internal.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Reads the segments of a state log directory in order and hands every intact record to a
 * {@link RecordVisitor}. It changes nothing on disk: a torn tail of the last segment is reported in
 * the {@link Result}, corruption anywhere else throws {@link
 * dev.twophase.StateLogCorruptedException}, and so does a missing segment (a sealed last segment, a
 * gap in the sequence numbers). The rules are those of {@link LogFormat}, "Torn tails and damage"
 * and "Seals".
 *
 * <p>Where to find what: {@link SegmentScan} reads one segment (its header checked by {@link
 * SegmentHeaderCheck}, its records' bodies decoded by {@link RecordDecoder}, its bytes read through
 * {@link SegmentBytes}, its damage reported by {@link SegmentDamage}); {@link SegmentChain} checks
 * the rules across segments (no gaps, seals).
 */
final class LogReader {

  private LogReader() {}

  /**
   * A segment as read.
   *
   * @param version its format version (0 if its header is incomplete)
   * @param sealed whether it ends with a SEAL record
   */
  record ScannedSegment(long sequence, Path file, long size, long validEnd, long records,
      int version, boolean sealed) {}

  /**
   * What a scan found.
   *
   * @param logId the log id in the segment headers, or null if no segment has a complete header
   * @param unsealed the segment before the last if a roll to the last one was interrupted before
   *     it sealed it (format 3), else null; the owner seals it at open
   * @param tornSeal the torn SEAL record at the end of {@code unsealed}, if its write was
   *     interrupted, else null
   * @param oldFormat whether a segment of format 2 (without seals) is among the segments
   */
  record Result(List<ScannedSegment> segments, TornTail tornTail, String logId,
      ScannedSegment unsealed, TornTail tornSeal, boolean oldFormat) {}

  /** A segment became shorter while it was read: its owner cut off a torn tail. Read again. */
  static final class SegmentChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    SegmentChangedException(String message) {
      super(message);
    }
  }

  /** A segment file found in the directory. */
  record SegmentFile(long sequence, Path file) {}

  /** The segment files of {@code directory}, in sequence order. */
  static List<SegmentFile> listSegments(Path directory) throws IOException {
    List<SegmentFile> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      for (Path p : stream) {
        long seq = LogFormat.parseSegmentFileName(p.getFileName().toString());
        if (seq >= 0) {
          files.add(new SegmentFile(seq, p));
        }
      }
    }
    files.sort(Comparator.comparingLong(SegmentFile::sequence));
    return files;
  }

  /** Reads every segment of {@code directory}. */
  static Result scan(Path directory, RecordVisitor visitor) throws IOException {
    return scan(listSegments(directory), visitor);
  }

  static Result scan(List<SegmentFile> files, RecordVisitor visitor) throws IOException {
    SegmentChain.checkNoGaps(files);
    List<ScannedSegment> segments = new ArrayList<>(files.size());
    TornTail torn = null;
    TornTail tornSeal = null;
    String logId = null;
    Path logIdFile = null;
    for (int i = 0; i < files.size(); i++) {
      SegmentFile f = files.get(i);
      try (FileChannel ch = FileChannel.open(f.file(), StandardOpenOption.READ)) {
        SegmentScan scan = new SegmentScan(f, ch, i == files.size() - 1, i == files.size() - 2,
            visitor, logId, logIdFile);
        scan.run();
        segments.add(new ScannedSegment(f.sequence(), f.file(), scan.size, scan.validEnd,
            scan.records, scan.version, scan.sealed));
        if (scan.torn != null) {
          torn = scan.torn;
        }
        if (scan.tornSeal != null) {
          tornSeal = scan.tornSeal;
        }
        if (logId == null && scan.logId != null) {
          logId = scan.logId;
          logIdFile = f.file();
        }
      }
    }
    ScannedSegment unsealed = SegmentChain.checkSeals(segments, torn);
    boolean oldFormat = false;
    for (ScannedSegment seg : segments) {
      oldFormat |= seg.version() != 0 && seg.version() < LogFormat.SEALED_SINCE_VERSION;
    }
    return new Result(Collections.unmodifiableList(segments), torn, logId, unsealed,
        unsealed == null ? null : tornSeal, oldFormat);
  }
}
