package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * The application's last word before a checkpoint: what it holds that belongs in the checkpoint
 * (running totals it upserts once per checkpoint, a batch it buffers) is written now, into the
 * transactions the checkpoint is about to pre-commit. Flink's operators do the same in
 * {@code prepareSnapshotPreBarrier}.
 *
 * <p>Called on the application thread at the start of every checkpoint taken while the
 * coordinator is {@link CoordinatorState#RUNNING} ({@link Coordinator#checkpoint()}, a
 * {@link Coordinator#maybeCheckpoint()} that takes one, {@link EmbeddedCoordinator#snapshot}),
 * before any participant pre-commits and before the {@link ApplicationState} snapshot. Writes
 * through the coordinator's {@link Output}s, or through a participant's current transaction, go
 * into this checkpoint. {@link Coordinator#finish()} does not call it: write what remains before
 * calling {@code finish()}.
 *
 * <p>What the application keeps for the hook between checkpoints is application state: after a
 * failed checkpoint its input is read again, so reset it in
 * {@link ApplicationState#restoreAfterFailedCheckpoint} (or keep it in the snapshot), or it is
 * counted twice.
 *
 * <p>An exception fails the checkpoint as a failed pre-commit does: its transactions are aborted,
 * the application state is restored, and {@link CheckpointFailedException} is thrown. The hook
 * must not take a checkpoint itself.
 */
@PublicEvolving
@FunctionalInterface
public interface BeforeCheckpoint {

  /** Writes what checkpoint {@code checkpointId} must hold and the application still keeps. */
  void beforeCheckpoint(long checkpointId) throws Exception;
}
