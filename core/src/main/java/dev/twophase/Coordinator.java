package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.Checkpointing;
import dev.twophase.internal.CommitLoop;
import dev.twophase.internal.CoordinatorEngine;
import dev.twophase.internal.CoreSpec;
import dev.twophase.internal.PendingCheckpoint;
import dev.twophase.internal.StateCodec;
import dev.twophase.internal.engine.FrontEnd;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A self-driving two-phase-commit coordinator: it takes checkpoints on its own (by interval, record
 * count or on request) and keeps its bookkeeping in a {@link StateLog}.
 *
 * <h2>Design</h2>
 *
 * <p>Exactly-once output across several resources needs one place where "checkpoint n happened"
 * becomes true at a single instant. Here that instant is the return of a durable append to the
 * state log. Everything before it is reversible: each participant's transaction of checkpoint n is
 * pre-committed (durable but invisible) and the next transactions are begun, and if anything fails
 * or the process dies, the transactions are aborted (presumed abort). Everything after it is
 * inevitable: the record names every pre-committed handle, so the commits are redone, by this
 * process or by the next one after a crash, until each participant reports them committed. The
 * protocol therefore needs only two things from a participant: a pre-commit that survives a crash,
 * and a commit that can be repeated from the handle alone. What it cannot tell from the resource
 * (a transaction that expired before its commit) it reports as {@link TransactionLostException},
 * never as success.
 *
 * <p>The record also names the transactions begun for checkpoint n + 1, so that a restart aborts
 * them; the few begun after the last durable record are found by each participant from its own
 * naming scheme ({@link TransactionContext#transactionName()}). It carries each participant's
 * context and the application's own snapshot ({@link ApplicationState}), so the application resumes
 * its input exactly where the decided output ends. Because every record carries all transactions
 * still pending, the log only ever needs its latest record per coordinator, which is what keeps it
 * small under compaction; completion marks merely save idempotent re-commits after a crash.
 *
 * <p>Threads. Writes, checkpoints and {@code finish} happen on one application thread, which owns
 * the current transactions: the per-record path ({@link Output#write}) checks the thread, reads a
 * field and calls the participant's writer, with no lock and no allocation of the coordinator's.
 * A call from another thread is refused before it changes anything. Commits run on a dedicated
 * committer thread, in checkpoint order and, within a checkpoint, in participant order, so a
 * resource never sees transaction n + 1 committed before n. A failed commit is retried with
 * exponential backoff and is never dropped; while it is retried, the application keeps writing and
 * deciding later checkpoints, which queue behind it, up to an optional bound
 * ({@link CoordinatorConfig.Builder#maxPendingCheckpoints}). The two threads share only the set of
 * pending checkpoints and the coordinator's state. Once a later decision that no longer holds a
 * committed handle is durable, a participant that implements {@link RetirementListener} is told
 * that the handle will never be committed again.
 *
 * <p>Failure model. A failed pre-commit fails only its checkpoint ({@link CheckpointFailedException}):
 * its transactions are aborted everywhere, new ones are begun, and the application is told to
 * replay from the last decided snapshot. A failed log append leaves the decision unknown, so the
 * coordinator stops without committing or aborting ({@link FatalTwoPhaseException}); the next start
 * reads the log and finishes whichever way it went. Lost transactions and fencing stop it too.
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * try (StateLog log = FileStateLog.open(Path.of("state"))) {
 *   FileParticipant files = ...;
 *   Coordinator coordinator = Coordinator.builder("orders", log)
 *       .participant("files", files)
 *       .config(CoordinatorConfig.custom().checkpointInterval(Duration.ofSeconds(1)).build())
 *       .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> position, (p, id) -> seek(p)))
 *       .build();                                   // recovers, then begins transactions
 *   Output<String> out = coordinator.output(files);
 *   for (String record : input) {
 *     out.write(record);
 *     coordinator.maybeCheckpoint();               // by interval or record count
 *   }
 *   coordinator.finish().awaitCommitted(Duration.ofSeconds(30));
 *   coordinator.close();
 * }
 * }</pre>
 *
 * <p>The coordinator owns its participants: {@link #close()} closes them.
 */
@PublicEvolving
public final class Coordinator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final CoordinatorEngine core;
  private final CoordinatorLog log;
  /** Whether {@link #log} belongs to a shared log ({@link StateLog#isShared()}). */
  private final boolean sharedLog;
  private final CommitLoop committer;
  private final long intervalNanos;
  private final long everyRecords;

  private Coordinator(CoordinatorEngine core, CoordinatorLog log, boolean sharedLog) {
    this.core = core;
    this.log = log;
    this.sharedLog = sharedLog;
    CoordinatorConfig config = core.config();
    this.intervalNanos = config.checkpointInterval().map(Duration::toNanos).orElse(-1L);
    this.everyRecords = config.checkpointEveryRecords();
    this.committer = new CommitLoop(core, log);
  }

  /** Starts building a coordinator with this id over {@code stateLog}. */
  public static Builder builder(String coordinatorId, StateLog stateLog) {
    return new Builder(coordinatorId, stateLog);
  }

  private void start() throws Exception {
    StoredState last = log.lastState();
    StateCodec.CoordinatorRecord record =
        last == null ? null : StateCodec.decode(last.payload(), "the state log of coordinator '" + core.coordinatorId() + "'");
    // Above the log's epoch, and above the last incarnation's even when that one ran under the
    // same owner (a coordinator closed and built again on a log that stayed open): every start
    // gets an epoch of its own, so transaction names never repeat.
    long epoch = record == null ? log.ownerEpoch() : Math.max(log.ownerEpoch(), record.ownerEpoch() + 1);
    core.recover(record, log.lastCompletedCheckpointId(), epoch, log.logId(), sharedLog, log::appendCompletion);
    core.beginAll(core.lastCheckpointId() + 1);
    // The start-up record: a crash before the first checkpoint must abort what was just begun.
    byte[] initial;
    try {
      initial = core.encodeInitialState();
    } catch (Exception e) {
      String participant = e instanceof TwoPhaseException t ? t.participant().orElse(null) : null;
      throw new FatalTwoPhaseException("coordinator '" + core.coordinatorId() + "' could not encode its start-up "
          + "record (the transactions it just began, after checkpoint " + core.lastCheckpointId() + "): "
          + e.getMessage() + "; they were aborted. Fix the participant's codec", e, core.lastCheckpointId(),
          participant);
    }
    log.appendState(core.lastCheckpointId(), initial);
    core.transition(CoordinatorState.RUNNING);
    core.earlierIncarnationsRetired();
    LOG.info("coordinator {} started: epoch {}, log {}, last decided checkpoint {}",
        core.coordinatorId(), core.ownerEpoch(), log.logId(), core.lastCheckpointId());
  }

  /**
   * An output that writes records into {@code participant}'s current transaction. Obtain it once
   * and keep it; it follows the coordinator from transaction to transaction.
   */
  public <IN, T, P extends Participant<T, ?> & Writable<IN, T>> Output<IN> output(P participant) {
    return core.output(participant);
  }

  /**
   * The current transaction of {@code participant}, for participants that expose their resource
   * through it (a JDBC connection bound to it, for example). Changes at every checkpoint: read it
   * again after {@link #checkpoint()} or {@link #maybeCheckpoint()}. Application thread only.
   */
  public <T> T currentTransaction(Participant<T, ?> participant) {
    return core.currentTransaction(participant);
  }

  /**
   * Takes a checkpoint if one is due by interval or record count. Call it at a record boundary of
   * the application (after a record was written to every output it goes to), since that is where
   * the application's snapshot is taken.
   *
   * @return the checkpoint, if one was taken
   */
  public Optional<Checkpoint> maybeCheckpoint() {
    core.ensureApplicationThread("maybeCheckpoint");
    core.ensure("maybeCheckpoint", CoordinatorState.RUNNING);
    boolean due =
        (everyRecords > 0 && core.recordsSinceCheckpoint() >= everyRecords)
            || (intervalNanos >= 0
                && core.config().ticker().read() - core.lastCheckpointAtNanos() >= intervalNanos);
    return due ? Optional.of(checkpoint()) : Optional.empty();
  }

  /**
   * Takes a checkpoint now: pre-commits every participant, begins the next transactions, makes the
   * decision durable, and hands the commits to the committer thread.
   *
   * @throws CheckpointFailedException if a participant could not pre-commit; the checkpoint was
   *     aborted and the application restored to the last decided snapshot; the coordinator goes on
   * @throws PendingLimitExceededException if too many checkpoints await their commits and the
   *     policy is to fail; nothing was done
   * @throws FatalTwoPhaseException if the decision's outcome is unknown or the coordinator failed
   * @throws IllegalStateException if called from another thread than the application thread
   */
  public Checkpoint checkpoint() {
    core.ensureApplicationThread("checkpoint");
    core.ensure("checkpoint", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    Checkpointing.Decided decided = core.checkpoint(log::appendState);
    committer.retireLater(decided.retirable());
    committer.drainLater();
    return new Checkpoint(decided.checkpoint().id(), decided.checkpoint().committed());
  }

  /**
   * End of input: participants flush into their current transactions, which are decided in a last
   * checkpoint; no transaction is begun after it, and writes are refused.
   *
   * @return the last checkpoint; await its commit before {@link #close()} to see all output now
   */
  public Checkpoint finish() {
    core.finishProcessing();
    return checkpoint();
  }

  /** The coordinator's life-cycle state. Any thread. */
  public CoordinatorState state() {
    return core.state();
  }

  public String coordinatorId() {
    return core.coordinatorId();
  }

  /** The id of the last decided checkpoint (0 if none yet). Any thread. */
  public long lastCheckpointId() {
    return core.lastCheckpointId();
  }

  /** Decided checkpoints whose commits are not done yet. Any thread. */
  public int pendingCheckpoints() {
    return core.pending().size();
  }

  /** The owner epoch of this incarnation (see {@link ParticipantContext#ownerEpoch()}). Any thread. */
  public long ownerEpoch() {
    return core.ownerEpoch();
  }

  // ---------------------------------------------------------------- close

  /**
   * Waits up to {@code closeTimeout} for decided checkpoints to commit, aborts the open
   * transactions (their records were never decided), closes the participants and releases the
   * coordinator id in the log. Commits not done in time are left to the next start's recovery.
   * Any thread but the committer's; idempotent.
   *
   * @throws IllegalStateException if called on the committer thread (from a participant's
   *     {@code commit} or a listener), where it would wait for itself
   */
  @Override
  public void close() {
    if (committer.isCommitterThread()) {
      throw new IllegalStateException("close() of coordinator '" + core.coordinatorId() + "' was "
          + "called on its committer thread (from a participant's commit or retirement, or from a "
          + "listener), where it would wait for its own commit to end: close the coordinator from "
          + "the application thread, or stop it by throwing a FatalTwoPhaseException from the commit");
    }
    if (core.state() == CoordinatorState.CLOSED) {
      return;
    }
    awaitPendingCommits();
    core.pending().closing();
    try {
      // Never interrupt: an interrupted FileChannel closes, and a shared log with it. A commit
      // attempt still running after the timeout is left to end on its (daemon) thread; whatever
      // it leaves undone, the log still holds as pending.
      if (!committer.close(core.config().closeTimeout())) {
        LOG.warn("coordinator {}: a commit attempt is still running after {} ms; closing without it",
            core.coordinatorId(), core.config().closeTimeout().toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    TwoPhaseException notCommitted = new TwoPhaseException(
        "coordinator '" + core.coordinatorId() + "' closed before the commit; the next start commits it");
    for (PendingCheckpoint p : core.pending().snapshot()) {
      p.committed().completeExceptionally(notCommitted);
    }
    Error error = core.releaseParticipants();
    try {
      log.close();
    } finally {
      core.transition(CoordinatorState.CLOSED);
      LOG.info("coordinator {} closed at checkpoint {}", core.coordinatorId(), core.lastCheckpointId());
    }
    if (error != null) {
      throw error;
    }
  }

  private void awaitPendingCommits() {
    List<CompletableFuture<Void>> outstanding = new ArrayList<>();
    core.pending().snapshot().forEach(p -> outstanding.add(p.committed()));
    if (outstanding.isEmpty() || core.state() == CoordinatorState.FAILED) {
      return;
    }
    try {
      CompletableFuture.allOf(outstanding.toArray(new CompletableFuture<?>[0]))
          .get(core.config().closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warn("coordinator {}: {} decided checkpoint(s) not committed within {} ms; the next start "
          + "commits them", core.coordinatorId(), core.pending().size(), core.config().closeTimeout().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("coordinator {}: commits failed before close; the next start retries them",
          core.coordinatorId(), e);
    }
  }

  @Override
  public String toString() {
    return "Coordinator{" + core.coordinatorId() + ", " + core.state() + ", checkpoint "
        + core.lastCheckpointId() + ", pending " + core.pending().size() + '}';
  }

  /** Builds a {@link Coordinator}; {@link #build()} runs recovery. */
  public static final class Builder {
    private final CoreSpec spec;
    private final StateLog stateLog;

    private Builder(String coordinatorId, StateLog stateLog) {
      this.spec = new CoreSpec(coordinatorId);
      this.stateLog = Objects.requireNonNull(stateLog, "stateLog");
    }

    /**
     * Adds a participant. The name identifies its handles in the log: keep it stable across
     * releases. Participants pre-commit and commit in the order they are added.
     */
    public Builder participant(String name, Participant<?, ?> participant) {
      spec.participant(name, participant);
      return this;
    }

    public Builder config(CoordinatorConfig config) {
      spec.config(config);
      return this;
    }

    public Builder listener(CoordinatorListener listener) {
      spec.listener(listener);
      return this;
    }

    /** The application's own part of each checkpoint, restored at start-up. */
    public Builder applicationState(ApplicationState<?> applicationState) {
      spec.applicationState(applicationState);
      return this;
    }

    /**
     * Called on the application thread at the start of every checkpoint, before the pre-commits:
     * the place to write what the application still holds for the checkpoint (see
     * {@link BeforeCheckpoint}).
     */
    public Builder beforeCheckpoint(BeforeCheckpoint hook) {
      spec.beforeCheckpoint(hook);
      return this;
    }

    /**
     * Opens the coordinator's view of the log, recovers (commits what was decided, aborts what
     * was open, restores the application), begins new transactions and records them durably.
     * Whatever fails, nothing stays claimed: the coordinator id is released in the log and the
     * participants are closed.
     *
     * @throws IllegalArgumentException if the participants or settings do not fit together
     * @throws FencedException if this coordinator id is already open on the log
     * @throws DecisionLostException if a participant shows committed what the log holds undecided
     * @throws TwoPhaseException if recovery failed; nothing was lost, and building again retries
     */
    public Coordinator build() {
      CoordinatorEngine core = spec.newCore(new FrontEnd.Advice(
          "start-up stopped, build the coordinator again to retry",
          "the state log of coordinator '" + spec.coordinatorId() + "'",
          "the log lost a later decision (a damaged or replaced log, a log restored from an old backup, or another "
              + "log used with the same output)",
          "Find out why the log lost its records (restore it from a backup, check that this log belongs to this "
              + "output); if duplicates are acceptable, build the coordinator with "
              + "CoordinatorConfig.continueAfterLostDecision()"), LOG);
      CoordinatorLog view;
      try {
        view = stateLog.open(spec.coordinatorId());
      } catch (RuntimeException | Error e) {
        throw core.abandonStart(e);
      }
      Coordinator coordinator = new Coordinator(core, view, stateLog.isShared());
      try {
        coordinator.start();
        return coordinator;
      } catch (Exception | Error e) {
        try {
          coordinator.committer.close(Duration.ZERO);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
        try {
          throw core.abandonStart(e);
        } finally {
          view.close();
        }
      }
    }
  }
}
