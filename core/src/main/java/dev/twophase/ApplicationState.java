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
 * pre-commits and before the decision is logged; what it returns is stored with the decision.
 * {@link #restore} is called when the application must continue from a decided checkpoint: at
 * start-up if the log holds one, and after a failed checkpoint, whose records were aborted and
 * must be read again.
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
   * Continue from this snapshot: every record after it must be produced again. {@code
   * checkpointId} is the decided checkpoint it belongs to.
   */
  void restore(S snapshot, long checkpointId) throws Exception;

  /** An application state made of two functions. */
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
}
