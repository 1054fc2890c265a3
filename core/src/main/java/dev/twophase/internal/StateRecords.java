package dev.twophase.internal;

import dev.twophase.CoordinatorState;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import dev.twophase.internal.engine.Member;
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
      CoordinatorEngine core, long checkpointId, Iterable<PendingCheckpoint> pending,
      PendingCheckpoint extra, VersionedBytes application) throws Exception {
    CoordinatorRecord record = record(core, checkpointId, pending, extra, application);
    byte[] encoded = StateCodec.encode(record);
    StateSize.check(record, encoded);
    return encoded;
  }

  /** The record {@link #encode} encodes, with every handle and context encoded by its codec. */
  static CoordinatorRecord record(
      CoordinatorEngine core, long checkpointId, Iterable<PendingCheckpoint> pending,
      PendingCheckpoint extra, VersionedBytes application) throws Exception {
    List<ParticipantRecord> participants = new ArrayList<>(core.members.size());
    for (Member<Object, Object> member : core.members) {
      List<HandleRecord> handles = new ArrayList<>();
      for (PendingCheckpoint p : pending) {
        p.addHandle(member.index(), handles);
      }
      if (extra != null) {
        extra.addHandle(member.index(), handles);
      }
      HandleRecord current = member.current() == null
          ? null
          : new HandleRecord(member.currentCheckpointId(), member.currentBegunAt(), member.encode(member.current()));
      byte[] context = member.encodeUserContext();
      participants.add(new ParticipantRecord(member.name(), member.transactionCodec().version(),
          context == null ? null : new VersionedBytes(member.contextCodec().version(), context), handles, current));
    }
    return new CoordinatorRecord(
        StateCodec.FORMAT, core.coordinatorId, core.logId, checkpointId, core.ownerEpoch,
        core.config.clock().millis(), core.lifecycle.state() == CoordinatorState.FINISHED,
        participants, application);
  }
}
