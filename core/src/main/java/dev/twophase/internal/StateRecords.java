package dev.twophase.internal;

import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.internal.StateCodec.Blob;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the coordinator's state record: every pending checkpoint's handles (to commit), the open
 * transactions (to abort), the contexts and the application snapshot. Since every record carries
 * everything still pending, the log needs only the latest one.
 */
final class StateRecords {

  private StateRecords() {}

  /**
   * Encodes the state as of {@code checkpointId}: the checkpoints in {@code pending} plus
   * {@code extra} (the one being decided, may be null), the current transactions, contexts and
   * {@code application}.
   *
   * @throws dev.twophase.TwoPhaseException if the record is larger than {@link
   *     dev.twophase.StateLog#MAX_STATE_BYTES} (see {@link StateSize})
   */
  static byte[] encode(
      CoordinatorCore core, long checkpointId, Iterable<PendingCheckpoint> pending,
      PendingCheckpoint extra, Blob application) throws Exception {
    CoordinatorRecord record = record(core, checkpointId, pending, extra, application);
    byte[] encoded = StateCodec.encode(record);
    StateSize.check(record, encoded);
    return encoded;
  }

  /** The record {@link #encode} encodes, with every handle and context encoded by its codec. */
  static CoordinatorRecord record(
      CoordinatorCore core, long checkpointId, Iterable<PendingCheckpoint> pending,
      PendingCheckpoint extra, Blob application) throws Exception {
    List<ParticipantRecord> participants = new ArrayList<>(core.slots.size());
    for (Slot<Object, Object> slot : core.slots) {
      List<HandleRecord> handles = new ArrayList<>();
      for (PendingCheckpoint p : pending) {
        p.addHandle(slot.index, handles);
      }
      if (extra != null) {
        extra.addHandle(slot.index, handles);
      }
      HandleRecord current = slot.current == null
          ? null
          : new HandleRecord(slot.currentCheckpointId, slot.currentBegunAt, slot.encode(slot.current));
      Blob context = slot.context.isPresent() ? encodeContext(slot) : null;
      participants.add(new ParticipantRecord(
          slot.name, slot.transactionCodec.version(), context, handles, current));
    }
    return new CoordinatorRecord(
        StateCodec.FORMAT, core.coordinatorId, core.logId, checkpointId, core.ownerEpoch,
        core.config.clock().millis(), core.lifecycle.state() == CoordinatorState.FINISHED,
        participants, application);
  }

  private static Blob encodeContext(Slot<Object, Object> slot) {
    try {
      return new Blob(slot.contextCodec.version(), slot.contextCodec.encode(slot.context.get()));
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + slot.name + "': its context codec (version "
          + slot.contextCodec.version() + ") could not encode its context: " + e, e, -1, slot.name);
    }
  }
}
