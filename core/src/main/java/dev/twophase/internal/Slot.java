package dev.twophase.internal;

import dev.twophase.Codec;
import dev.twophase.Participant;
import dev.twophase.Writable;
import java.time.Duration;
import java.util.Optional;

/**
 * One participant as the coordinator holds it. The fields about the current transaction are
 * touched only by the application thread.
 */
final class Slot<T, C> {

  final int index;
  final String name;
  final Participant<T, C> participant;
  final Codec<T> transactionCodec;
  final Codec<C> contextCodec;
  /** Effective transaction timeout: the participant's own, else the coordinator's; may be null. */
  final Duration timeout;
  final Writable<Object, T> writable;

  Optional<C> context = Optional.empty();
  T current;
  long currentBegunAt;
  long currentCheckpointId;
  long sequence;
  /** Records written through this participant's outputs since the last checkpoint. */
  long recordsSinceCheckpoint;

  @SuppressWarnings("unchecked")
  Slot(int index, String name, Participant<T, C> participant, Duration defaultTimeout) {
    this.index = index;
    this.name = name;
    this.participant = participant;
    this.transactionCodec = requireCodec(participant.transactionCodec(), name, "transactionCodec");
    this.contextCodec = requireCodec(participant.contextCodec(), name, "contextCodec");
    Optional<Duration> own = participant.transactionTimeout();
    if (own == null) {
      throw new IllegalArgumentException(
          "participant '" + name + "' returned null from transactionTimeout(); return Optional.empty()");
    }
    this.timeout = own.orElse(defaultTimeout);
    this.writable = participant instanceof Writable ? (Writable<Object, T>) participant : null;
  }

  private static <X> Codec<X> requireCodec(Codec<X> codec, String name, String what) {
    if (codec == null) {
      throw new IllegalArgumentException("participant '" + name + "' returned null from " + what + "()");
    }
    if (codec.version() <= 0) {
      throw new IllegalArgumentException(
          "participant '" + name + "': " + what + "().version() must be positive, was " + codec.version());
    }
    return codec;
  }

  byte[] encode(T handle) throws Exception {
    byte[] bytes = transactionCodec.encode(handle);
    if (bytes == null) {
      throw new IllegalStateException("participant '" + name + "': transaction codec returned null");
    }
    return bytes;
  }

  @Override
  public String toString() {
    return name;
  }
}
