package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Codec;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.engine.Member;
import java.time.Duration;
import java.util.List;

/**
 * One checkpoint up to its decision: pre-commit every participant, begin the next transactions,
 * snapshot the application, encode the state record. Before the record exists everything is
 * reversible: a failure aborts the checkpoint's transactions in every participant (presumed
 * abort), begins new ones and tells the application to replay. Application thread only.
 */
@Internal
public final class Checkpointing {

  /**
   * A checkpoint whose participants pre-committed, ready to be decided by making {@code state}
   * durable. {@code retirable}: committed checkpoints the state no longer holds, to retire once it
   * is durable.
   */
  public record Prepared(
      PendingCheckpoint checkpoint, byte[] state, VersionedBytes application, List<PendingCheckpoint> retirable) {}

  /** How a front-end makes a checkpoint's decision durable. */
  @FunctionalInterface
  public interface Decision {

    /**
     * Makes {@code state} durable as the decision of checkpoint {@code id}: once it returns, the
     * checkpoint is decided. Whatever it throws leaves the outcome unknown.
     */
    void makeDurable(long id, byte[] state);
  }

  /**
   * A decided checkpoint, and the committed checkpoints whose handles its durable record no longer
   * holds (to retire).
   */
  public record Decided(PendingCheckpoint checkpoint, List<PendingCheckpoint> retirable) {}

  private final CoordinatorEngine core;
  private boolean running;
  /** The id {@link #checkpoint} gives the next checkpoint, at least; application thread only. */
  private long nextId;

  Checkpointing(CoordinatorEngine core) {
    this.core = core;
  }

  /** Begins a transaction in every participant, to be pre-committed in {@code checkpointId}. */
  void beginAll(long checkpointId) {
    long sequence = core.sequence++;
    for (Member<Object, Object> member : core.members) {
      Object handle = member.begin(checkpointId, sequence);
      core.log.debug("coordinator {}: began {} in {} for checkpoint {}",
          core.coordinatorId, handle, member.name(), checkpointId);
    }
    core.lastCheckpointAtNanos = core.config.ticker().read();
  }

  /**
   * The next checkpoint, from start to decision: waits for room among the pending checkpoints
   * (a refusal leaves its id unused; a failure after it does not), prepares it ({@link #prepare}), makes its record durable
   * through {@code decision}, and records it as decided. A failed {@code decision} stops the
   * coordinator with the outcome unknown ({@link #decisionUnknown}).
   */
  Decided checkpoint(Decision decision) {
    long id = Math.max(nextId, core.lastCheckpointId + 1);
    long waited = core.pending.awaitRoom(core.coordinatorId, id);
    if (waited > 0) {
      core.listener.onCheckpointDelayed(core.coordinatorId, id, Duration.ofNanos(waited));
    }
    nextId = id + 1;
    long start = core.config.ticker().read();
    Prepared prepared = prepare(id);
    try {
      decision.makeDurable(id, prepared.state());
    } catch (RuntimeException e) {
      throw decisionUnknown(prepared, e);
    }
    core.reached(ProtocolPoint.AFTER_LOG_APPEND);
    PendingCheckpoint decided = decided(prepared);
    Duration took = Duration.ofNanos(core.config.ticker().read() - start);
    CoordinatorEngine.CHECKPOINTS.debug("coordinator {}: checkpoint {} decided in {} ms", core.coordinatorId, id,
        took.toMillis());
    core.listener.onCheckpointDecided(core.coordinatorId, id, took);
    return new Decided(decided, prepared.retirable());
  }

  /**
   * Checkpoint {@code id} for an engine that stores the state in its own checkpoint: waits for
   * room, prepares it and holds it as pending from now on (later snapshots carry it until it is
   * committed). The engine's completion of the checkpoint is the decision.
   *
   * @return the state to store in the engine's checkpoint
   */
  byte[] snapshot(long id) {
    core.pending.awaitRoom(core.coordinatorId, id);
    Prepared prepared = prepare(id);
    decided(prepared);
    CoordinatorEngine.CHECKPOINTS.debug("coordinator {}: snapshot of checkpoint {}", core.coordinatorId, id);
    return prepared.state();
  }

  /**
   * Pre-commits every current transaction, begins the next ones (unless finished), snapshots the
   * application and encodes the state record of checkpoint {@code id}. On failure before the
   * record exists, aborts that checkpoint's transactions everywhere (presumed abort), begins new
   * ones, tells the application to replay, and throws {@link CheckpointFailedException}.
   */
  private Prepared prepare(long id) {
    core.applicationThread.check("checkpoint");
    core.ensure("checkpoint", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    if (running) {
      throw new IllegalStateException("checkpoint " + id + " of coordinator '" + core.coordinatorId
          + "' started while another one is running (the beforeCheckpoint hook, a listener or a participant "
          + "took a checkpoint)");
    }
    if (id <= core.lastCheckpointId) {
      throw new IllegalArgumentException(
          "checkpoint id " + id + " is not greater than the last one, " + core.lastCheckpointId);
    }
    if (id == Long.MAX_VALUE) {
      throw new IllegalArgumentException("checkpoint id " + id + " is the largest long: no "
          + "checkpoint could follow it; use ids well below it");
    }
    running = true;
    try {
      return doPrepare(id);
    } finally {
      running = false;
    }
  }

  private Prepared doPrepare(long id) {
    core.listener.onCheckpointStarted(core.coordinatorId, id);
    CoordinatorEngine.CHECKPOINTS.debug("coordinator {}: checkpoint {} started", core.coordinatorId, id);
    PendingCheckpoint checkpoint = new PendingCheckpoint(id, core.members.size());
    if (core.beforeCheckpoint != null && core.lifecycle.state() == CoordinatorState.RUNNING) {
      try {
        core.beforeCheckpoint.beforeCheckpoint(id);
      } catch (Exception e) {
        throw abortCheckpoint(id, null, "the application's beforeCheckpoint hook failed", e, checkpoint, false);
      }
    }
    core.reached(ProtocolPoint.BEFORE_PRE_COMMIT);
    int last = core.members.size() - 1;
    for (Member<Object, Object> member : core.members) {
      if (member.current() == null) {
        continue;
      }
      Object committable;
      try {
        committable = member.preCommit();
      } catch (Exception e) {
        throw abortCheckpoint(id, member.name(), "preCommit failed", e, checkpoint, false);
      }
      byte[] encoded;
      try {
        encoded = member.encode(committable);
      } catch (RuntimeException e) {
        checkpoint.set(member.index(), committable, null, member.currentBegunAt());
        throw abortCheckpoint(id, member.name(), "its transaction codec could not encode the handle", e, checkpoint,
            false);
      }
      checkpoint.set(member.index(), committable, encoded, member.currentBegunAt());
      if (member.index() < last) {
        core.reached(ProtocolPoint.BETWEEN_PRE_COMMITS);
      }
    }
    if (core.lifecycle.state() == CoordinatorState.RUNNING) {
      try {
        beginAll(id + 1);
      } catch (Exception e) {
        throw beginFailed(id, e, checkpoint);
      }
    } else {
      core.clearCurrent();
    }
    core.reached(ProtocolPoint.AFTER_PRE_COMMITS);
    VersionedBytes application;
    try {
      application = snapshotApplication(id);
    } catch (Exception e) {
      throw abortCheckpoint(id, null, "the application snapshot failed", e, checkpoint, true);
    }
    List<PendingCheckpoint> retirable = core.pending.takeRetirable();
    byte[] state;
    StateCodec.CoordinatorRecord record;
    try {
      record = StateRecords.record(core, id, core.pending.values(), checkpoint, application);
      state = StateCodec.encode(record);
    } catch (Exception e) {
      throw abortCheckpoint(id, null, "the state record could not be encoded (a handle or context "
          + "codec failed)", e, checkpoint, true);
    }
    try {
      StateSize.check(record, state);
    } catch (TwoPhaseException e) {
      throw abortCheckpoint(id, e.participant().orElse(null), "the state record is too large", e,
          checkpoint, true);
    }
    return new Prepared(checkpoint, state, application, retirable);
  }

  /** The next transactions could not be begun: abort everything and stop. */
  private TwoPhaseException beginFailed(long id, Exception e, PendingCheckpoint checkpoint) {
    core.abortQuietly(checkpoint);
    core.abortCurrentQuietly();
    core.clearCurrent();
    // Without new transactions the coordinator cannot go on: stop, and let a restart begin.
    TwoPhaseException failure = e instanceof FatalTwoPhaseException fatal
        ? fatal
        : new FatalTwoPhaseException(
            "checkpoint " + id + " of coordinator '" + core.coordinatorId + "' was aborted because "
                + "the next transactions could not be begun: " + e.getMessage()
                + "; close this coordinator and start a new one",
            e, id, e instanceof TwoPhaseException t ? t.participant().orElse(null) : null);
    core.listener.onCheckpointFailed(core.coordinatorId, id, failure);
    core.fail(failure);
    return failure;
  }

  /**
   * Records that checkpoint {@code prepared} is decided: from now on its transactions will be
   * committed, in this process or by recovery.
   */
  private PendingCheckpoint decided(Prepared prepared) {
    PendingCheckpoint checkpoint = prepared.checkpoint();
    core.lastCheckpointId = checkpoint.id;
    core.lastApplicationSnapshot = prepared.application();
    core.lastCheckpointAtNanos = core.config.ticker().read();
    core.resetRecordCounts();
    checkpoint.decidedAtNanos = core.lastCheckpointAtNanos;
    core.pending.add(checkpoint);
    return checkpoint;
  }

  /**
   * The log append failed. Its outcome is unknown in general: neither commit nor abort the
   * pre-committed transactions, stop, and let recovery read what the log holds. A {@link
   * dev.twophase.FencedException} is the one known outcome (the log stored nothing: another owner
   * claimed the coordinator, and read everything stored before): the checkpoint can never be
   * decided, so its transactions and the ones begun after it are aborted before stopping, rather
   * than left for the new owner's next start.
   */
  private TwoPhaseException decisionUnknown(Prepared prepared, Exception cause) {
    long id = prepared.checkpoint().id;
    if (cause instanceof dev.twophase.FencedException fenced) {
      core.log.warn("coordinator {}: another owner claimed it, checkpoint {} was not appended; aborting its "
          + "transactions and stopping", core.coordinatorId, id, fenced);
      core.abortQuietly(prepared.checkpoint());
      core.abortCurrentQuietly();
      core.clearCurrent();
    }
    TwoPhaseException failure = cause instanceof dev.twophase.FencedException
        ? (TwoPhaseException) cause
        : new FatalTwoPhaseException(
            "the decision of checkpoint " + id + " of coordinator '" + core.coordinatorId
                + "' may or may not be durable (" + cause.getMessage() + "); close this coordinator "
                + "and start a new one: recovery commits it if the record reached the log, else aborts it",
            cause, id, null);
    core.listener.onCheckpointFailed(core.coordinatorId, id, failure);
    core.fail(failure);
    return failure;
  }

  /**
   * Aborts checkpoint {@code id}: the transactions {@code prepared} holds (pre-committed ones) and,
   * unless the next transactions are begun already ({@code nextBegun}), the current ones of the
   * participants that did not pre-commit yet. Nothing of it was appended, so nothing of it can be
   * decided: it is aborted also when the failure stops the coordinator (a fenced participant, say),
   * together with every current transaction, rather than left for the next owner's start-up.
   */
  private RuntimeException abortCheckpoint(
      long id, String participant, String what, Exception cause, PendingCheckpoint prepared,
      boolean nextBegun) {
    if (cause instanceof FatalTwoPhaseException fatal) {
      core.log.warn("coordinator {}: checkpoint {} failed for good ({}{}); aborting its transactions in every "
          + "participant", core.coordinatorId, id, what, participant == null ? "" : " in participant '" + participant
          + "'", cause);
      core.abortQuietly(prepared);
      if (nextBegun) {
        core.abortCurrentQuietly(); // the transactions begun for the next checkpoint
      } else {
        for (Member<Object, Object> member : core.members) {
          if (member.current() != null && prepared.handles[member.index()] == null) {
            member.abortQuietly(member.current(), id);
          }
        }
      }
      core.clearCurrent();
      core.listener.onCheckpointFailed(core.coordinatorId, id, fatal);
      core.fail(fatal);
      return fatal;
    }
    core.log.warn("coordinator {}: checkpoint {} failed ({}{}); aborting its transactions in every participant",
        core.coordinatorId, id, what, participant == null ? "" : " in participant '" + participant + "'", cause);
    core.abortQuietly(prepared);
    if (!nextBegun) {
      for (Member<Object, Object> member : core.members) {
        if (member.current() != null && prepared.handles[member.index()] == null) {
          member.abortQuietly(member.current(), id);
        }
      }
      core.clearCurrent();
    }
    CheckpointFailedException failure = new CheckpointFailedException(
        "checkpoint " + id + " of coordinator '" + core.coordinatorId + "' failed: " + what
            + (participant == null ? "" : " in participant '" + participant + "'") + ": "
            + cause.getMessage() + ". Its transactions were aborted; the records written since "
            + (core.lastCheckpointId == 0 ? "the start (no checkpoint was decided yet)" : "checkpoint " + core.lastCheckpointId)
            + " must be written again (" + (core.applicationState == null
                ? "no ApplicationState is registered: the application replays them itself)"
                : "the application state was restored to " + (core.lastCheckpointId == 0 ? "where it started)" : "it)")),
        cause, id, participant, core.lastCheckpointId);
    core.listener.onCheckpointFailed(core.coordinatorId, id, failure);
    try {
      if (!nextBegun && core.lifecycle.state() == CoordinatorState.RUNNING) {
        beginAll(id + 1);
      }
      core.resetRecordCounts();
      core.restoreApplication(id);
    } catch (Exception e) {
      TwoPhaseException fatal = new FatalTwoPhaseException(
          "after checkpoint " + id + " failed, the coordinator could not start over: " + e.getMessage(),
          e, id, null);
      fatal.addSuppressed(failure);
      core.fail(fatal);
      return fatal;
    }
    return failure;
  }

  /** The application's snapshot for checkpoint {@code id}, encoded; null without an application state. */
  VersionedBytes snapshotApplication(long id) throws Exception {
    if (core.applicationState == null) {
      return null;
    }
    Object snapshot = core.applicationState.snapshot(id);
    Codec<Object> codec = core.applicationState.codec();
    return new VersionedBytes(codec.version(), codec.encode(snapshot));
  }
}
