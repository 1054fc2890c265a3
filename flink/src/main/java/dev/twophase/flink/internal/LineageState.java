package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.List;
import java.util.Objects;

/**
 * The writer state of one subtask: one element of the sink's writer state list. Flink hands each
 * element to exactly one subtask on restore, also when the parallelism changed, so a subtask may
 * receive several (scale-down) or none (scale-up).
 *
 * <p>A lineage is the chain of writer incarnations that continue one another's state; its
 * transactions are named {@code <sinkId>-<participant>-<lineage>-<epoch>-<sequence>}. From the
 * state alone a restored subtask knows which of those names may still be committed (pre-committed
 * at or before this checkpoint: Flink's committer holds them) and which must be aborted (see
 * {@link RecoveryRule}).
 *
 * @param sinkId       the sink's id
 * @param lineage      the lineage id
 * @param epoch        the owner epoch of the incarnation that took the state
 * @param nextSequence the sequence of the first transaction of that incarnation that was not
 *                     pre-committed when the state was taken (the open one, if any)
 * @param subtask      the subtask that took the state
 * @param parallelism  the sink's parallelism when the state was taken
 * @param participants every participant's context and open handle, in registration order
 */
@Internal
public record LineageState(
    String sinkId, String lineage, long epoch, long nextSequence, int subtask, int parallelism,
    List<ParticipantState> participants) {

  public LineageState {
    Objects.requireNonNull(sinkId, "sinkId");
    Objects.requireNonNull(lineage, "lineage");
    participants = List.copyOf(participants);
  }

  /** This lineage's state of the participant {@code name}, or null. */
  public ParticipantState participant(String name) {
    for (ParticipantState p : participants) {
      if (p.participant().equals(name)) {
        return p;
      }
    }
    return null;
  }
}
