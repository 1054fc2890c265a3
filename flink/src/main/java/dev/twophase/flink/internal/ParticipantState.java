package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One participant's part of a {@link LineageState}: its user context as its
 * {@link dev.twophase.Participant#contextCodec()} wrote it, the handle of the transaction that
 * was open when the state was taken (begun, not yet pre-committed), if any, and the handles of the
 * transactions the incarnation had pre-committed and not yet retired.
 *
 * <p>The pending handles are what a checkpoint's committables may still hold: a restored writer
 * commits them (again, {@code recoverAndCommit} being idempotent) before it aborts anything or
 * begins, so that a participant that reuses its resources (the Kafka participant's pool of
 * transactional ids) keeps them for these transactions until a later checkpoint completed. Without
 * that, an attempt that restored a checkpoint and failed before its own first checkpoint could
 * have reused an id that the next restore of the same checkpoint must still find as it was. Only
 * participants that listen for retirement ({@link dev.twophase.RetirementListener}) have pending
 * handles; for the others, the list is empty.
 *
 * @param participant         the participant's name within the sink
 * @param contextCodecVersion the context codec's version when it wrote {@code context}
 * @param context             the encoded context, or null if the participant had none
 * @param open                the open transaction's handle (the one {@code beginTransaction}
 *                            returned), or null
 * @param pending             pre-committed handles not yet retired, in pre-commit order
 */
@Internal
public record ParticipantState(String participant, int contextCodecVersion, byte[] context, EncodedHandle open,
    List<EncodedHandle> pending) {

  public ParticipantState {
    Objects.requireNonNull(participant, "participant");
    pending = List.copyOf(pending);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ParticipantState p
        && participant.equals(p.participant)
        && contextCodecVersion == p.contextCodecVersion
        && Arrays.equals(context, p.context)
        && Objects.equals(open, p.open)
        && pending.equals(p.pending);
  }

  @Override
  public int hashCode() {
    return Objects.hash(participant, contextCodecVersion, open, pending) * 31 + Arrays.hashCode(context);
  }

  @Override
  public String toString() {
    return participant + "[context " + (context == null ? "none" : context.length + "B") + ", open " + open + ", pending "
        + pending + "]";
  }
}
