package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.Arrays;
import java.util.Objects;

/**
 * One participant's part of a {@link LineageState}: its user context as its
 * {@link dev.twophase.Participant#contextCodec()} wrote it, and the handle of the transaction that
 * was open when the state was taken (begun, not yet pre-committed), if any.
 *
 * @param participant         the participant's name within the sink
 * @param contextCodecVersion the context codec's version when it wrote {@code context}
 * @param context             the encoded context, or null if the participant had none
 * @param open                the open transaction's handle (the one {@code beginTransaction}
 *                            returned), or null
 */
@Internal
public record ParticipantState(String participant, int contextCodecVersion, byte[] context, EncodedHandle open) {

  public ParticipantState {
    Objects.requireNonNull(participant, "participant");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ParticipantState p
        && participant.equals(p.participant)
        && contextCodecVersion == p.contextCodecVersion
        && Arrays.equals(context, p.context)
        && Objects.equals(open, p.open);
  }

  @Override
  public int hashCode() {
    return Objects.hash(participant, contextCodecVersion, open) * 31 + Arrays.hashCode(context);
  }

  @Override
  public String toString() {
    return participant + "[context " + (context == null ? "none" : context.length + "B") + ", open " + open + "]";
  }
}
