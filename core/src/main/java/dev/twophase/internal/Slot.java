package dev.twophase.internal;

import dev.twophase.Codec;
import dev.twophase.CoordinatorConfig;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RetirementListener;
import dev.twophase.Writable;
import java.time.Duration;
import java.util.List;
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
  final RetirementListener<T> retirement;

  /** {@code TransactionNames.prefix(coordinatorId, name, logId)}, set when recovery starts. */
  String namePrefix;
  Optional<C> context = Optional.empty();
  /** The open transaction, as {@code beginTransaction} returned it. */
  T current;
  /** Where records of {@link #current} go (Writable participants only). */
  RecordWriter<Object> writer;
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
    own.ifPresent(d -> {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(
            "participant '" + name + "' returned a transaction timeout of " + d + "; it must be > 0");
      }
    });
    this.timeout = own.orElse(defaultTimeout);
    this.writable = participant instanceof Writable ? (Writable<Object, T>) participant : null;
    this.retirement = participant instanceof RetirementListener ? (RetirementListener<T>) participant : null;
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
    byte[] bytes;
    try {
      bytes = transactionCodec.encode(handle);
    } catch (Exception e) {
      throw new dev.twophase.FatalTwoPhaseException("participant '" + name + "': its transaction codec (version "
          + transactionCodec.version() + ") could not encode " + handle + ": " + e, e, -1, name);
    }
    if (bytes == null) {
      throw new IllegalStateException("participant '" + name + "': its transaction codec returned null for " + handle);
    }
    return bytes;
  }

  Contexts.Participant participantContext(String coordinatorId, long epoch, CoordinatorConfig config) {
    return new Contexts.Participant(coordinatorId, name, namePrefix, epoch, config.maxPendingCheckpoints(),
        config.checkpointInterval());
  }

  Contexts.Recovery<T, C> recoveryContext(
      String coordinatorId, long epoch, CoordinatorConfig config, List<T> handled, long lastCheckpointId) {
    return new Contexts.Recovery<>(coordinatorId, name, namePrefix, epoch, config.maxPendingCheckpoints(),
        config.checkpointInterval(), handled, context, lastCheckpointId);
  }

  @Override
  public String toString() {
    return name;
  }
}
