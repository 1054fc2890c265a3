package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.internal.CoordinatorEngine;
import dev.twophase.internal.CoreSpec;
import dev.twophase.internal.Incarnations;
import dev.twophase.internal.PendingCheckpoint;
import dev.twophase.internal.StateCodec;
import dev.twophase.internal.engine.FrontEnd;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator driven by another engine's checkpoints, with the hooks of Flink's
 * {@code TwoPhaseCommitSinkFunction}: the engine calls {@link #snapshot(long)} when it takes
 * checkpoint n and stores the returned bytes in its own durable checkpoint; it calls
 * {@link #notifyCheckpointComplete(long)} once checkpoint n is complete, which is the decision;
 * after a failure it builds a new coordinator with {@link Builder#restoreFrom(byte[])} and the bytes
 * of the checkpoint it restores.
 *
 * <p>There is no state log and no committer thread here: the engine owns durability and calls
 * everything on its task thread (calls from any other thread are refused). Commits run synchronously inside {@code notifyCheckpointComplete},
 * in checkpoint and participant order; a failing commit throws and stays pending, and is tried
 * again at the next notification or, after a restart, by recovery, as in Flink.
 *
 * <p>A notification commits every pending checkpoint with an id up to the notified one; a late
 * notification for a checkpoint already subsumed by a later one is a no-op. An aborted checkpoint's
 * transactions stay pending and are committed with the next completed checkpoint, whose state
 * includes them.
 */
@PublicEvolving
public final class EmbeddedCoordinator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCoordinator.class);

  private final CoordinatorEngine core;

  private EmbeddedCoordinator(CoordinatorEngine core) {
    this.core = core;
  }

  /** Starts building an embedded coordinator. */
  public static Builder builder(String coordinatorId) {
    return new Builder(coordinatorId);
  }

  /** See {@link Coordinator#output}. */
  public <IN, T, P extends Participant<T, ?> & Writable<IN, T>> Output<IN> output(P participant) {
    return core.output(participant);
  }

  /** See {@link Coordinator#currentTransaction}. */
  public <T> T currentTransaction(Participant<T, ?> participant) {
    return core.currentTransaction(participant);
  }

  /**
   * The engine takes checkpoint {@code checkpointId}: pre-commits every participant, begins the
   * next transactions (none after {@link #finish()}) and returns the state to store in the engine's
   * checkpoint. Nothing becomes visible until {@link #notifyCheckpointComplete(long)}.
   *
   * @throws CheckpointFailedException if a participant could not pre-commit; the engine should
   *     fail this checkpoint
   * @throws PendingLimitExceededException if {@code maxPendingCheckpoints} snapshots await their
   *     completion; nothing was done
   * @throws IllegalArgumentException if {@code checkpointId} is not greater than the last one, or
   *     is {@link Long#MAX_VALUE}
   */
  public byte[] snapshot(long checkpointId) {
    return core.snapshot(checkpointId);
  }

  /**
   * The engine completed checkpoint {@code checkpointId}: commits every pending checkpoint up to
   * it.
   *
   * @throws RetriableTwoPhaseException if a commit failed; it stays pending for the next
   *     notification or recovery
   * @throws TransactionLostException if a participant can no longer commit a transaction
   */
  public void notifyCheckpointComplete(long checkpointId) {
    core.ensureApplicationThread("notifyCheckpointComplete");
    core.ensure("notifyCheckpointComplete", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    for (PendingCheckpoint checkpoint : core.pending().upTo(checkpointId)) {
      try {
        core.commitCheckpoint(checkpoint);
      } catch (FatalTwoPhaseException e) {
        core.fail(e);
        throw e;
      } catch (Error e) {
        core.fail(new FatalTwoPhaseException("a participant threw " + e + " while committing "
            + "checkpoint " + checkpoint.id() + " of coordinator '" + core.coordinatorId() + "'; "
            + "the coordinator stopped: restore from the engine's checkpoint to commit it again",
            e, checkpoint.id(), null));
        throw e;
      }
      core.completed(checkpoint, false);
    }
  }

  /**
   * The engine gave up checkpoint {@code checkpointId}. Its transactions stay pending: the next
   * completed checkpoint includes and commits them.
   */
  public void notifyCheckpointAborted(long checkpointId) {
    LOG.info("coordinator {}: checkpoint {} aborted by the engine; its transactions are committed "
        + "with the next completed checkpoint", core.coordinatorId(), checkpointId);
  }

  /**
   * End of input: participants flush into their current transactions, which the next
   * {@link #snapshot} pre-commits without beginning new ones. Writes are refused after it.
   */
  public void finish() {
    core.finishProcessing();
  }

  public CoordinatorState state() {
    return core.state();
  }

  /** The last checkpoint snapshotted (restored, at start). Any thread. */
  public long lastCheckpointId() {
    return core.lastCheckpointId();
  }

  /** Snapshotted checkpoints whose commits are not done yet. Any thread. */
  public int pendingCheckpoints() {
    return core.pending().size();
  }

  /** The owner epoch of this incarnation. Any thread. */
  public long ownerEpoch() {
    return core.ownerEpoch();
  }

  /**
   * Aborts the open transactions and closes the participants. Snapshotted, uncommitted
   * transactions are left alone: the engine's checkpoint holds them and recovery commits them.
   */
  @Override
  public void close() {
    if (core.state() == CoordinatorState.CLOSED) {
      return;
    }
    Error error = core.releaseParticipants();
    core.transition(CoordinatorState.CLOSED);
    if (error != null) {
      throw error;
    }
  }

  /** Builds an {@link EmbeddedCoordinator}; {@link #build()} runs recovery. */
  public static final class Builder {
    private final CoreSpec spec;
    private byte[] restoredState;
    private long ownerEpoch = -1;
    private String lineage;

    private Builder(String coordinatorId) {
      this.spec = new CoreSpec(coordinatorId);
    }

    /** See {@link Coordinator.Builder#participant}. */
    public Builder participant(String name, Participant<?, ?> participant) {
      spec.participant(name, participant);
      return this;
    }

    /**
     * Interval and record-count settings do not apply here: the engine triggers checkpoints. A
     * pending limit must use {@link CoordinatorConfig.WhenPendingFull#FAIL}: commits run on the
     * engine's thread, so a snapshot cannot wait for them.
     */
    public Builder config(CoordinatorConfig config) {
      if (config.maxPendingCheckpoints() > 0 && config.whenPendingFull() == CoordinatorConfig.WhenPendingFull.BLOCK) {
        throw new IllegalArgumentException("maxPendingCheckpoints with WhenPendingFull.BLOCK cannot "
            + "work in an EmbeddedCoordinator: its commits run on the engine's thread, the one that "
            + "would wait for them. Use WhenPendingFull.FAIL");
      }
      spec.config(config);
      return this;
    }

    public Builder listener(CoordinatorListener listener) {
      spec.listener(listener);
      return this;
    }

    public Builder applicationState(ApplicationState<?> applicationState) {
      spec.applicationState(applicationState);
      return this;
    }

    /** See {@link Coordinator.Builder#beforeCheckpoint}: called at the start of every {@link #snapshot}. */
    public Builder beforeCheckpoint(BeforeCheckpoint hook) {
      spec.beforeCheckpoint(hook);
      return this;
    }

    /** Restore from the bytes {@link #snapshot(long)} returned for the checkpoint being restored. */
    public Builder restoreFrom(byte[] state) {
      this.restoredState = Objects.requireNonNull(state, "state").clone();
      return this;
    }

    /**
     * The owner epoch of this incarnation: it must differ from the epoch of every other
     * incarnation of this coordinator and grow with every restart, since transaction names are
     * made from it (an engine's attempt number combined with the restored checkpoint, for
     * example), and be above the restored state's epoch. Default: a number above the restored
     * epoch that is unique in this JVM and, across JVMs, made from the clock's milliseconds and a
     * random part (see {@link ParticipantContext#ownerEpoch()}).
     */
    public Builder ownerEpoch(long epoch) {
      if (epoch < 1) {
        throw new IllegalArgumentException("ownerEpoch must be >= 1, was " + epoch);
      }
      this.ownerEpoch = epoch;
      return this;
    }

    /**
     * The identity of this coordinator's lineage of checkpoints when it starts without restored
     * state: the part of every transaction name after the coordinator and participant names (see
     * {@link ParticipantContext#transactionNamePrefix()}). Give the same value at every fresh start
     * of the same coordinator (a job's name and the engine's subtask index, say), and only there:
     * then a fresh start's recovery finds, and aborts, what an earlier attempt of it left open or
     * pre-committed before any of its checkpoints was restored (an attempt that failed before its
     * first checkpoint completed), as Flink's Kafka sink aborts "all previous transactions". A
     * restored state carries its own lineage, which wins over this one.
     *
     * <p>Without it, each fresh start makes a new random lineage, and what an earlier fresh
     * attempt left behind is not this coordinator's to abort: it stays in its resources until
     * their timeouts expire it. Never give one lineage to two coordinators of the same id that run
     * at the same time: each would abort the other's transactions.
     *
     * @throws IllegalArgumentException if {@code lineage} is blank or longer than
     *     {@value TransactionNames#MAX_PART_LENGTH} characters
     */
    public Builder lineage(String lineage) {
      Objects.requireNonNull(lineage, "lineage");
      if (lineage.isBlank() || lineage.length() > TransactionNames.MAX_PART_LENGTH) {
        throw new IllegalArgumentException("lineage must be 1 to " + TransactionNames.MAX_PART_LENGTH
            + " characters, not blank; was '" + lineage + "'");
      }
      this.lineage = lineage;
      return this;
    }

    /**
     * Recovers from the restored state (commits its pending transactions, aborts its open ones),
     * then begins new transactions. Whatever fails, the participants are closed.
     *
     * @throws IllegalArgumentException if {@link #ownerEpoch(long)} is not above the restored epoch
     */
    public EmbeddedCoordinator build() {
      CoordinatorEngine core = spec.newCore(new FrontEnd.Advice(
          "start-up stopped, build the coordinator again to retry",
          "the restored state of coordinator '" + spec.coordinatorId() + "'",
          "a later checkpoint was committed and an older one was restored (an older savepoint or retained "
              + "checkpoint of the engine), or the state belongs to another output",
          "Restore the engine's latest checkpoint instead; if duplicates are acceptable, build the coordinator "
              + "with CoordinatorConfig.continueAfterLostDecision()"), LOG);
      EmbeddedCoordinator coordinator = new EmbeddedCoordinator(core);
      try {
        StateCodec.CoordinatorRecord record =
            restoredState == null ? null : StateCodec.decode(restoredState, "the restored state");
        long restoredEpoch = record == null ? 0 : record.ownerEpoch();
        if (ownerEpoch > 0 && ownerEpoch <= restoredEpoch) {
          throw new IllegalArgumentException("ownerEpoch " + ownerEpoch + " is not above the epoch of "
              + "the restored state, " + restoredEpoch + "; epochs must grow with every restart");
        }
        long epoch = ownerEpoch > 0 ? ownerEpoch : Incarnations.uniqueEpoch(restoredEpoch, spec.config().clock());
        String lineage = record != null && record.logId() != null ? record.logId()
            : this.lineage != null ? this.lineage : Incarnations.newLineageId();
        if (this.lineage != null && !this.lineage.equals(lineage)) {
          LOG.info("coordinator {}: continuing the restored state's lineage {}; the lineage given, {}, applies to "
              + "fresh starts only", spec.coordinatorId(), lineage, this.lineage);
        }
        // An engine's state has no completion marks: every pending transaction is re-committed.
        core.recover(record, 0, epoch, lineage, false, id -> {});
        core.beginAll(core.lastCheckpointId() + 1);
        core.transition(CoordinatorState.RUNNING);
        return coordinator;
      } catch (Exception | Error e) {
        throw core.abandonStart(e);
      }
    }
  }
}
