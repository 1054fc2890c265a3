package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.LongFunction;

/**
 * The application's own part of every checkpoint, typically its source positions, so that after a
 * crash it resumes exactly where the decided output ends.
 *
 * <p>{@link #snapshot} is called on the application thread inside each checkpoint, after the
 * pre-commits and before the decision is logged; what it returns is stored with the decision. The
 * application continues from a decided checkpoint at two moments, with a callback for each:
 * <ul>
 *   <li>{@link #restore} at start-up, inside the coordinator's {@code build()}, if the log (or, for
 *       an {@link EmbeddedCoordinator}, the engine's restored state) holds a decided checkpoint.
 *       Nothing has been read yet, and a Kafka consumer that subscribed to a group has no
 *       partitions yet: keep the positions, and seek when the partitions are assigned (a
 *       {@code ConsumerRebalanceListener}'s {@code onPartitionsAssigned}).
 *   <li>{@link #restoreAfterFailedCheckpoint} after a checkpoint failed, on the application thread
 *       inside {@code checkpoint()} or {@code maybeCheckpoint()}, before it throws
 *       {@link CheckpointFailedException}: that checkpoint's records were aborted, the application
 *       is running (its partitions assigned) and must read them again: seek now. By default it
 *       calls {@link #restore}. If no checkpoint was decided yet, it gets the snapshot that
 *       {@code build()} took ({@code snapshot(0)}, never logged): where the application started.
 *       So {@link #snapshot} must work from {@code build()} on.
 * </ul>
 *
 * @param <S> the snapshot type
 */
@PublicEvolving
public interface ApplicationState<S> {

  /** Encodes snapshots into the state log. */
  Codec<S> codec();

  /** The position after the last record written into the checkpoint's transactions. */
  S snapshot(long checkpointId) throws Exception;

  /**
   * At start-up: continue from this snapshot, every record after it must be produced again.
   * {@code checkpointId} is the decided checkpoint it belongs to. Called inside {@code build()},
   * before the application has read anything.
   */
  void restore(S snapshot, long checkpointId) throws Exception;

  /**
   * After checkpoint {@code failedCheckpointId} failed and its transactions were aborted: continue
   * from this snapshot of the last decided checkpoint, {@code checkpointId}; every record after it
   * must be produced again. Called on the application thread while it runs, before the failed
   * checkpoint's {@link CheckpointFailedException} is thrown. Default: {@link #restore}.
   */
  default void restoreAfterFailedCheckpoint(S snapshot, long checkpointId, long failedCheckpointId)
      throws Exception {
    restore(snapshot, checkpointId);
  }

  /**
   * An application state made of two functions; {@code restore} serves both moments (see
   * {@link #of(Codec, LongFunction, BiConsumer, BiConsumer)} to tell them apart).
   */
  static <S> ApplicationState<S> of(
      Codec<S> codec, LongFunction<S> snapshot, BiConsumer<S, Long> restore) {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(restore, "restore");
    return new ApplicationState<>() {
      @Override
      public Codec<S> codec() {
        return codec;
      }

      @Override
      public S snapshot(long checkpointId) {
        return snapshot.apply(checkpointId);
      }

      @Override
      public void restore(S state, long checkpointId) {
        restore.accept(state, checkpointId);
      }
    };
  }

  /**
   * An application state made of three functions: {@code restore} at start-up,
   * {@code restoreAfterFailedCheckpoint} after a failed checkpoint (both given the snapshot and
   * the id of the decided checkpoint it belongs to).
   */
  static <S> ApplicationState<S> of(Codec<S> codec, LongFunction<S> snapshot, BiConsumer<S, Long> restore,
      BiConsumer<S, Long> restoreAfterFailedCheckpoint) {
    Objects.requireNonNull(restoreAfterFailedCheckpoint, "restoreAfterFailedCheckpoint");
    ApplicationState<S> atStart = of(codec, snapshot, restore);
    return new ApplicationState<>() {
      @Override
      public Codec<S> codec() {
        return codec;
      }

      @Override
      public S snapshot(long checkpointId) throws Exception {
        return atStart.snapshot(checkpointId);
      }

      @Override
      public void restore(S state, long checkpointId) throws Exception {
        atStart.restore(state, checkpointId);
      }

      @Override
      public void restoreAfterFailedCheckpoint(S state, long checkpointId, long failedCheckpointId) {
        restoreAfterFailedCheckpoint.accept(state, checkpointId);
      }
    };
  }
}
