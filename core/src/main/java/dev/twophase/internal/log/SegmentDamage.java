package dev.twophase.internal.log;

import dev.twophase.StateLogCorruptedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * What a {@link SegmentScan} reports about damage in one segment: the {@link
 * StateLogCorruptedException}, which says where the damage is, why it is not a torn append, and
 * what the operator does about it. Nothing was changed on disk when one is thrown.
 */
final class SegmentDamage {

  private final Path file;
  private final boolean last;
  private final SegmentBytes bytes;
  private final long size;

  /**
   * @param last whether the segment is the log's last one, where an append may have been in
   *     progress
   */
  SegmentDamage(Path file, boolean last, SegmentBytes bytes) {
    this.file = file;
    this.last = last;
    this.bytes = bytes;
    this.size = bytes.size();
  }

  /** Where a damaged header is, for its message: nothing to add for the last segment. */
  String where() {
    return last ? "" : " in a segment that is not the last one";
  }

  StateLogCorruptedException malformed(String type, int len, long off) {
    return corrupted("malformed " + type + " record (body of " + len + " bytes) with a valid "
        + "checksum: the record was written by a faulty writer. " + steps(off), off);
  }

  /**
   * Damage found at {@code off}: why it is not a torn append, and what the operator does.
   *
   * @param lengthTrusted whether the record's length passed its check
   */
  StateLogCorruptedException damaged(String problem, long off, boolean lengthTrusted)
      throws IOException {
    String why;
    if (!last) {
      why = " in a segment that is not the last one, where no append can have been in progress";
    } else if (lengthTrusted) {
      why = " in the last segment, in a record written to its last byte (a torn append never"
          + " is), so it changed after it was written and may be a decision that was"
          + " acknowledged" + lostSectorHint(off);
    } else {
      why = " in the last segment, followed by written bytes (a torn append never is), so it"
          + " changed after it was written and may be a decision that was acknowledged";
    }
    return corrupted(problem + why + ": the log holds bytes that were damaged after they were"
        + " written. " + steps(off), off);
  }

  /**
   * If the record at {@code off} holds a whole 512-byte sector of zeros: a hint that a device
   * lost that sector of a write that had not been synced (a power loss), which the reader cannot
   * tell from a sector lost after it was synced. Empty otherwise.
   */
  private String lostSectorHint(long off) throws IOException {
    ByteBuffer frame = bytes.bytes(off, LogFormat.RECORD_HEADER_SIZE);
    long end = Math.min(size, off + LogFormat.RECORD_HEADER_SIZE + frame.getInt(0));
    for (long sector = (off + 511) / 512 * 512; sector + 512 <= end; sector += 512) {
      ByteBuffer b = bytes.bytes(sector, 512);
      boolean zeros = true;
      for (int i = 0; i < 512 && zeros; i++) {
        zeros = b.get(i) == 0;
      }
      if (zeros) {
        return " (it holds zeros in the whole sector at offset " + sector + ": if the machine"
            + " lost power, the device may have lost that sector of an append that had not"
            + " returned, and cutting the segment here then loses nothing that was"
            + " acknowledged)";
      }
    }
    return "";
  }

  /** What the operator does about damage in a record at {@code off}; nothing was changed. */
  String steps(long off) {
    return steps(off, true);
  }

  /**
   * What the operator does about damage at {@code off}; nothing was changed. {@code canCut}:
   * cutting the last segment there is a way out (not for a damaged header).
   */
  String steps(long off, boolean canCut) {
    String common = "Nothing was changed. To recover: stop, and copy the log directory aside;"
        + " restore a copy of it at least as recent as the damage if there is one (a file-system"
        + " snapshot taken after the last append, say)";
    if (!last || !canCut) {
      return common + "; otherwise see \"Torn tail or corruption\" in docs/state-log.md";
    }
    long after = Math.max(0, size - off);
    return common + "; otherwise cut the segment here (truncate -s " + off + " " + file
        + "), which drops this record and the " + after + " byte(s) from it to the end of the"
        + " file, and open the log: its coordinators restart from their records before this"
        + " one, and a checkpoint decided by a dropped record may already be committed in some"
        + " participants, so check them before resuming (see \"Torn tail or corruption\" in"
        + " docs/state-log.md)";
  }

  StateLogCorruptedException corrupted(String message, long off) {
    return new StateLogCorruptedException(message, file, off);
  }
}
