package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.Arrays;
import java.util.Objects;

/**
 * One participant's transaction handle as its own {@link dev.twophase.Participant#transactionCodec()}
 * wrote it: the bytes, the codec version they were written with, and when the transaction was begun
 * (by the writer's clock, for the transaction-timeout rules). The sink's committables and writer
 * state carry handles only in this form, so that nothing of a handle is ever Java-serialized and a
 * later release of the participant can read it.
 *
 * @param participant   the participant's name within the sink
 * @param codecVersion  the version {@code transactionCodec().version()} had when it wrote the bytes
 * @param begunAtMillis when the transaction was begun, epoch milliseconds
 * @param bytes         what the codec wrote
 */
@Internal
public record EncodedHandle(String participant, int codecVersion, long begunAtMillis, byte[] bytes) {

  public EncodedHandle {
    Objects.requireNonNull(participant, "participant");
    Objects.requireNonNull(bytes, "bytes");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EncodedHandle h
        && participant.equals(h.participant)
        && codecVersion == h.codecVersion
        && begunAtMillis == h.begunAtMillis
        && Arrays.equals(bytes, h.bytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(participant, codecVersion, begunAtMillis) * 31 + Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return participant + ":v" + codecVersion + ":" + bytes.length + "B";
  }
}
