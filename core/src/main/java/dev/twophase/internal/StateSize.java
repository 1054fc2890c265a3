package dev.twophase.internal;

import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;

/**
 * The limit on a coordinator's state record, {@link StateLog#MAX_STATE_BYTES}, checked when the
 * record is encoded: a checkpoint whose record is larger is refused before anything is decided,
 * with a message that names what makes it large (the participant and its largest handle or
 * context, or the application snapshot). The readers ({@link StateCodec}, {@link JsonCodec}) have
 * no size limits of their own, so every record this check lets through is read back.
 */
final class StateSize {

  private StateSize() {}

  /**
   * Throws if {@code encoded}, the encoding of {@code record}, is larger than the limit.
   *
   * @throws TwoPhaseException naming the checkpoint, the largest part and, if it is a
   *     participant's, that participant
   */
  static void check(CoordinatorRecord record, byte[] encoded) {
    if (encoded.length <= StateLog.MAX_STATE_BYTES) {
      return;
    }
    String participant = null;
    long largest = 0;
    String what = "";
    if (record.application() != null) {
      largest = base64Length(record.application().bytes());
      what = "the application snapshot takes " + bytes(largest) + " of it as base64 ("
          + bytes(record.application().bytes().length) + " from its codec): make the snapshot"
          + " smaller (input positions, not data)";
    }
    for (ParticipantRecord p : record.participants()) {
      long total = 0;
      long biggest = -1;
      String biggestName = null;
      int rawBiggest = 0;
      for (HandleRecord h : p.pending()) {
        long n = base64Length(h.handle());
        total += n;
        if (n > biggest) {
          biggest = n;
          rawBiggest = h.handle().length;
          biggestName = "the handle pending for checkpoint " + h.checkpointId();
        }
      }
      if (p.current() != null) {
        long n = base64Length(p.current().handle());
        total += n;
        if (n > biggest) {
          biggest = n;
          rawBiggest = p.current().handle().length;
          biggestName = "the handle begun for checkpoint " + p.current().checkpointId();
        }
      }
      VersionedBytes context = p.context();
      if (context != null) {
        long n = base64Length(context.bytes());
        total += n;
        if (n > biggest) {
          biggest = n;
          rawBiggest = context.bytes().length;
          biggestName = "its context";
        }
      }
      if (total > largest) {
        largest = total;
        participant = p.name();
        what = "participant '" + p.name() + "' takes " + bytes(total) + " of it ("
            + p.pending().size() + " pending handle(s)" + (p.current() == null ? "" : ", 1 open")
            + (context == null ? "" : ", its context") + "), the largest " + biggestName + ": "
            + bytes(rawBiggest) + " from its codec, " + bytes(biggest) + " as base64. "
            + (biggestName.equals("its context")
                ? "Make its context smaller: every state record holds it"
                : "Make its handles smaller: a handle names a transaction (ids, names, an xid)"
                    + " and holds none of its data")
            + (p.pending().size() > 1 ? "; many pending handles mean its commits keep failing"
                : "");
      }
    }
    throw new TwoPhaseException("it would be " + bytes(encoded.length)
        + ", over the limit of " + bytes(StateLog.MAX_STATE_BYTES) + " (StateLog.MAX_STATE_BYTES)"
        + " on what a state log stores for one coordinator; " + what, null,
        record.checkpointId(), participant);
  }

  /** The length of {@code bytes} as base64, as the record holds it. */
  private static long base64Length(byte[] bytes) {
    return 4L * ((bytes.length + 2L) / 3);
  }

  private static String bytes(long n) {
    return String.format("%,d bytes", n);
  }
}
