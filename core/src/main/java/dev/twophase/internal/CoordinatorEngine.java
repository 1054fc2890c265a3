package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.ApplicationState;
import dev.twophase.BeforeCheckpoint;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.ProtocolPoint;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.engine.CommitRules;
import dev.twophase.internal.engine.FrontEnd;
import dev.twophase.internal.engine.Member;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's engine: its participants (as the engine's {@link dev.twophase.internal.engine.Member}s),
 * its state, and the order of the protocol's steps, shared by both ways of driving a coordinator.
 * The steps live in their own classes: {@link Recovery} (start-up), {@link Checkpointing} (room,
 * pre-commit, begin, the durable decision, in that order), {@link Commits} (commit, completion,
 * retirement), {@link StateRecords} (the state record); what each participant's step means is the
 * per-participant engine's ({@code dev.twophase.internal.engine}), which the Flink adapter uses
 * too. The front-ends say only where a decision is made durable (a {@code StateLog} append, or
 * another engine's checkpoint) and on which thread commits run: {@link dev.twophase.Coordinator}
 * and {@link dev.twophase.EmbeddedCoordinator}.
 *
 * <p>Threads: the application thread calls everything except {@link #commitCheckpoint} and the
 * retirement calls, which the committer calls. They share only {@link #pending()} and the
 * life-cycle state; fields that any thread may read are volatile.
 */
@Internal
public final class CoordinatorEngine {

  /**
   * The logger of the lines a coordinator writes for every checkpoint (decided, committed), at
   * DEBUG: apart from the front-end's own logger, which keeps start-up, recovery, retries and
   * failures, so that an application can see those without a line per checkpoint.
   */
  public static final Logger CHECKPOINTS = LoggerFactory.getLogger("dev.twophase.checkpoints");

  /** A participant as registered with a builder. */
  public record Registration(String name, Participant<?, ?> participant) {}

  final String coordinatorId;
  final List<Member<Object, Object>> members;
  private final IdentityHashMap<Participant<?, ?>, Member<Object, Object>> byParticipant;
  /** What the engine's per-participant steps know of this coordinator. */
  final FrontEnd frontEnd;
  final CoordinatorConfig config;
  final CoordinatorListener listener;
  final ApplicationState<Object> applicationState;
  /** Null if none. */
  final BeforeCheckpoint beforeCheckpoint;
  final Logger log;
  final Lifecycle lifecycle;
  final PendingCheckpoints pending;
  final ApplicationThread applicationThread;
  private final Checkpointing checkpointing;
  private final Commits commits;

  volatile long ownerEpoch;
  volatile long lastCheckpointId;
  /** The identity of the log (or lineage of checkpoints) in transaction names; set by recovery. */
  volatile String logId;
  /** Application thread only. */
  VersionedBytes lastApplicationSnapshot;
  /**
   * The application's snapshot taken at start-up when no decided checkpoint holds one: what a
   * checkpoint that fails before any was decided restores. Never logged. Application thread only.
   */
  VersionedBytes startApplicationSnapshot;
  long lastCheckpointAtNanos;
  /** The sequence of the next transactions begun. Application thread only. */
  long sequence;

  @SuppressWarnings("unchecked")
  public CoordinatorEngine(
      String coordinatorId,
      List<Registration> registrations,
      CoordinatorConfig config,
      CoordinatorListener listener,
      ApplicationState<?> applicationState,
      BeforeCheckpoint beforeCheckpoint,
      FrontEnd.Advice advice,
      Logger log) {
    this.coordinatorId = CoordinatorIds.requireValid(coordinatorId);
    this.config = Objects.requireNonNull(config, "config");
    this.log = Objects.requireNonNull(log, "log");
    this.listener = SafeListener.wrap(listener, log);
    this.applicationState = (ApplicationState<Object>) applicationState;
    this.beforeCheckpoint = beforeCheckpoint;
    if (registrations.isEmpty()) {
      throw new IllegalArgumentException(
          "coordinator " + CoordinatorIds.quote(coordinatorId) + " has no participants; add one with participant(name, p)");
    }
    this.frontEnd = new FrontEnd(coordinatorId, "coordinator " + CoordinatorIds.quote(coordinatorId), advice,
        config.maxPendingCheckpoints(), config.checkpointInterval(), config.transactionTimeout().orElse(null),
        new CommitRules(config.ignoreFailuresAfterTransactionTimeout(), config.transactionTimeoutWarningRatio(),
            false, config.continueAfterLostDecision()),
        config.clock(), config.faultInjector(), this.listener, log);
    List<Member<Object, Object>> list = new ArrayList<>();
    IdentityHashMap<Participant<?, ?>, Member<Object, Object>> map = new IdentityHashMap<>();
    Set<String> names = new HashSet<>();
    for (Registration r : registrations) {
      if (!names.add(r.name())) {
        throw new IllegalArgumentException("participant name " + CoordinatorIds.quote(r.name()) + " is used twice");
      }
      if (map.containsKey(r.participant())) {
        throw new IllegalArgumentException(
            "participant " + CoordinatorIds.quote(r.name()) + " is the same instance as another participant; "
                + "register each instance once");
      }
      Member<Object, Object> member = new Member<>(
          list.size(), r.name(), (Participant<Object, Object>) r.participant(), frontEnd);
      list.add(member);
      map.put(r.participant(), member);
    }
    this.members = List.copyOf(list);
    this.byParticipant = map;
    requireTimeoutWhereNeeded();
    this.lifecycle = new Lifecycle(coordinatorId, this.listener, log);
    this.pending = new PendingCheckpoints(config.maxPendingCheckpoints(), config.whenPendingFull(), config.ticker());
    this.applicationThread = new ApplicationThread(coordinatorId);
    this.checkpointing = new Checkpointing(this);
    this.commits = new Commits(this);
  }

  /** Warnings and ignore-after-timeout would never fire without a timeout: refuse them. */
  private void requireTimeoutWhereNeeded() {
    boolean any = members.stream().anyMatch(m -> m.timeout() != null);
    if (any) {
      return;
    }
    if (config.transactionTimeoutWarningRatio() >= 0) {
      throw new IllegalArgumentException("enableTransactionTimeoutWarnings is set but no transaction "
          + "timeout applies to any participant of coordinator " + CoordinatorIds.quote(coordinatorId)
          + ", so no warning could ever fire: set CoordinatorConfig.transactionTimeout, or remove the "
          + "warnings");
    }
    if (config.ignoreFailuresAfterTransactionTimeout()) {
      throw new IllegalArgumentException("ignoreFailuresAfterTransactionTimeout is set but no "
          + "transaction timeout applies to any participant of coordinator "
          + CoordinatorIds.quote(coordinatorId) + ", so it could never apply: set "
          + "CoordinatorConfig.transactionTimeout, or remove the option");
    }
  }

  // ---------------------------------------------------------------- accessors

  public String coordinatorId() {
    return coordinatorId;
  }

  public CoordinatorState state() {
    return lifecycle.state();
  }

  public long lastCheckpointId() {
    return lastCheckpointId;
  }

  public long ownerEpoch() {
    return ownerEpoch;
  }

  public CoordinatorConfig config() {
    return config;
  }

  public CoordinatorListener listener() {
    return listener;
  }

  public Logger log() {
    return log;
  }

  public PendingCheckpoints pending() {
    return pending;
  }

  public long lastCheckpointAtNanos() {
    return lastCheckpointAtNanos;
  }

  /**
   * Tells the configured {@link dev.twophase.FaultInjector} that {@code point} is reached. An
   * injector that throws (a test stopping a process between two steps) stops the coordinator, as a
   * crash there would, and its exception is rethrown as it is: whatever the protocol had made
   * durable stays for the next start to finish, and {@code close()} still releases everything.
   */
  public void reached(ProtocolPoint point) {
    try {
      config.faultInjector().reached(point.name());
    } catch (RuntimeException | Error e) {
      fail(new FatalTwoPhaseException("coordinator '" + coordinatorId + "' stopped by a fault "
          + "injected at " + point + ": " + e + "; the next start recovers", e));
      throw e;
    }
  }

  // ---------------------------------------------------------------- life cycle

  public void transition(CoordinatorState to) {
    lifecycle.transition(to);
  }

  /**
   * Stops the coordinator for good: the next call on the application thread throws
   * {@code cause}, and every pending checkpoint's future fails with it (its commits will not
   * happen in this process; the next start commits them).
   */
  public void fail(TwoPhaseException cause) {
    lifecycle.fail(cause);
    pending.failAll(cause);
  }

  /** Throws the failure that stopped the coordinator, or if it is not in one of {@code allowed}. */
  public void ensure(String operation, CoordinatorState... allowed) {
    lifecycle.ensure(operation, allowed);
  }

  /** Refuses a call that does not come from the application thread. */
  public void ensureApplicationThread(String operation) {
    applicationThread.check(operation);
  }

  // ---------------------------------------------------------------- outputs

  public <T> T currentTransaction(Participant<T, ?> participant) {
    applicationThread.check("currentTransaction");
    ensure("currentTransaction", CoordinatorState.RUNNING);
    @SuppressWarnings("unchecked")
    T current = (T) member(participant).current();
    return current;
  }

  public <IN> Output<IN> output(Participant<?, ?> participant) {
    Member<Object, Object> member = member(participant);
    if (!member.isWritable()) {
      throw new IllegalArgumentException(
          "participant '" + member.name() + "' does not implement Writable; write through the resource "
              + "its participant binds to currentTransaction(participant) instead");
    }
    return new ParticipantOutput<>(this, member);
  }

  private Member<Object, Object> member(Participant<?, ?> participant) {
    Member<Object, Object> member = byParticipant.get(Objects.requireNonNull(participant, "participant"));
    if (member == null) {
      throw new IllegalArgumentException(
          "this participant instance is not registered with coordinator '" + coordinatorId + "'");
    }
    return member;
  }

  /**
   * The most records any one output took since the last checkpoint: with every input record
   * written to each output, the number of input records; in general, the size of the largest
   * transaction.
   */
  public long recordsSinceCheckpoint() {
    long max = 0;
    for (Member<Object, Object> member : members) {
      max = Math.max(max, member.records());
    }
    return max;
  }

  void resetRecordCounts() {
    for (Member<Object, Object> member : members) {
      member.resetRecords();
    }
  }

  // ---------------------------------------------------------------- protocol steps

  /**
   * Start-up: commits what {@code record} holds as decided and not yet completed, aborts what it
   * holds as open, lets every participant clean up, restores the application.
   *
   * @param record the last state, or null on a first start
   * @param lastCompleted highest checkpoint id known to be fully committed
   * @param logId the identity of the log or lineage, for transaction names
   * @param sharedLog whether {@code epoch} was claimed on a shared log, for the contexts
   * @param completions told the highest id this recovery committed, for a completion mark
   */
  public void recover(
      CoordinatorRecord record, long lastCompleted, long epoch, String logId, boolean sharedLog,
      LongConsumer completions) throws Exception {
    new Recovery(this).run(record, lastCompleted, epoch, logId, sharedLog, completions);
  }

  /** Begins a transaction in every participant, to be pre-committed in {@code checkpointId}. */
  public void beginAll(long checkpointId) {
    checkpointing.beginAll(checkpointId);
  }

  /** See {@link Checkpointing#checkpoint}. Application thread only. */
  public Checkpointing.Decided checkpoint(Checkpointing.Decision decision) {
    applicationThread.check("checkpoint");
    ensure("checkpoint", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    return checkpointing.checkpoint(decision);
  }

  /** See {@link Checkpointing#snapshot}. Application thread only. */
  public byte[] snapshot(long id) {
    applicationThread.check("snapshot");
    ensure("snapshot", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    return checkpointing.snapshot(id);
  }

  /**
   * Takes the application's snapshot of where it starts, if no decided checkpoint gave it one, so
   * that a checkpoint failing before any is decided restores the application there.
   */
  void snapshotApplicationAtStart() throws Exception {
    if (applicationState == null || lastApplicationSnapshot != null) {
      return;
    }
    try {
      startApplicationSnapshot = checkpointing.snapshotApplication(lastCheckpointId);
    } catch (Exception e) {
      throw new FatalTwoPhaseException("coordinator '" + coordinatorId + "': the application snapshot at start-up "
          + "(what a checkpoint failing before any is decided restores) failed: " + e.getMessage()
          + "; ApplicationState.snapshot must work from build() on", e, lastCheckpointId, null);
    }
  }

  /** The state record at start-up: nothing pending, the new transactions, the last snapshot. */
  public byte[] encodeInitialState() throws Exception {
    return StateRecords.encode(this, lastCheckpointId, List.of(), null, lastApplicationSnapshot);
  }

  /** See {@link Commits#commitCheckpoint}. */
  public void commitCheckpoint(PendingCheckpoint checkpoint) {
    commits.commitCheckpoint(checkpoint);
  }

  /** See {@link Commits#completed}. */
  public void completed(PendingCheckpoint checkpoint, boolean retire) {
    commits.completed(checkpoint, retire);
  }

  /** See {@link Commits#retire}. */
  public void retire(List<PendingCheckpoint> checkpoints) {
    commits.retire(checkpoints);
  }

  /** See {@link Commits#earlierIncarnationsRetired}. */
  public void earlierIncarnationsRetired() {
    commits.earlierIncarnationsRetired();
  }

  /**
   * Gives the application the last decided snapshot: every record after it is written again; at
   * start-up if {@code failedCheckpointId} is negative, else after that checkpoint failed.
   */
  void restoreApplication(long failedCheckpointId) throws Exception {
    VersionedBytes snapshot = lastApplicationSnapshot != null || failedCheckpointId < 0
        ? lastApplicationSnapshot : startApplicationSnapshot;
    if (applicationState == null || snapshot == null) {
      return;
    }
    Object decoded;
    try {
      decoded = applicationState.codec().decode(snapshot.bytes(), snapshot.version());
    } catch (Exception e) {
      throw new FatalTwoPhaseException(
          "cannot decode the application snapshot of checkpoint " + lastCheckpointId
              + " of coordinator '" + coordinatorId + "': " + e.getMessage(), e, lastCheckpointId, null);
    }
    if (failedCheckpointId < 0) {
      applicationState.restore(decoded, lastCheckpointId);
    } else {
      applicationState.restoreAfterFailedCheckpoint(decoded, lastCheckpointId, failedCheckpointId);
    }
  }

  // ---------------------------------------------------------------- finish, abort, close

  /** End of input: every participant flushes into its current transaction. */
  public void finishProcessing() {
    applicationThread.check("finish");
    ensure("finish", CoordinatorState.RUNNING);
    for (Member<Object, Object> member : members) {
      try {
        member.finishProcessing(lastCheckpointId + 1);
      } catch (FatalTwoPhaseException e) {
        fail(e);
        throw e;
      } catch (RuntimeException | Error e) {
        TwoPhaseException failure = new FatalTwoPhaseException(
            "finishProcessing failed in participant '" + member.name() + "' for " + member.current() + ": " + e,
            e, lastCheckpointId + 1, member.name());
        fail(failure);
        throw failure;
      }
    }
    transition(CoordinatorState.FINISHED);
  }

  /**
   * Aborts every open transaction; failures are logged (the resource or recovery cleans up).
   *
   * @return the first {@link Error} an abort threw, after all were tried, or null
   */
  public Error abortCurrentQuietly() {
    Error first = null;
    for (Member<Object, Object> member : members) {
      if (member.current() != null) {
        first = firstError(first, member.abortQuietly(member.current(), member.currentCheckpointId()));
      }
    }
    return first;
  }

  /** Aborts the pre-committed transactions of {@code checkpoint}; see {@link #abortCurrentQuietly}. */
  Error abortQuietly(PendingCheckpoint checkpoint) {
    Error first = null;
    for (Member<Object, Object> member : members) {
      Object handle = checkpoint.handles[member.index()];
      if (handle != null) {
        first = firstError(first, member.abortQuietly(handle, checkpoint.id));
      }
    }
    return first;
  }

  public void clearCurrent() {
    for (Member<Object, Object> member : members) {
      member.clearCurrent();
    }
  }

  /**
   * Undoes a start that failed part-way: aborts what was begun, closes the participants, and
   * returns the exception to throw. A {@link TwoPhaseException} or a programming error
   * ({@link IllegalArgumentException}, {@link IllegalStateException}, {@link NullPointerException})
   * is returned as it is, any other exception wrapped into a {@link RetriableTwoPhaseException}; an
   * {@link Error} is thrown, after the clean-up.
   */
  public RuntimeException abandonStart(Throwable cause) {
    Error error = firstError(cause instanceof Error e ? e : null, releaseParticipants());
    lifecycle.transitionIfPossible(CoordinatorState.CLOSED);
    if (error != null) {
      if (error != cause) {
        error.addSuppressed(cause);
      }
      throw error;
    }
    if (cause instanceof TwoPhaseException
        || cause instanceof IllegalArgumentException
        || cause instanceof IllegalStateException
        || cause instanceof NullPointerException) {
      return (RuntimeException) cause;
    }
    return new RetriableTwoPhaseException(
        "start-up of coordinator '" + coordinatorId + "' failed: " + cause.getMessage()
            + "; nothing was lost, build it again to retry", cause);
  }

  /**
   * The end of a coordinator: aborts the open transactions (their records were never decided) and
   * closes every participant, whatever fails; failures are logged.
   *
   * @return the first {@link Error} an abort or a {@code close()} threw, the others suppressed
   *     into it, or null
   */
  public Error releaseParticipants() {
    Error error = abortCurrentQuietly();
    clearCurrent();
    return firstError(error, closeParticipants());
  }

  /**
   * Closes every participant, logging failures.
   *
   * @return the first {@link Error} a participant's {@code close()} threw, after all were closed,
   *     or null
   */
  public Error closeParticipants() {
    Error first = null;
    for (Member<Object, Object> member : members) {
      first = firstError(first, member.closeQuietly());
    }
    return first;
  }

  static Error firstError(Error first, Error next) {
    if (first == null) {
      return next;
    }
    if (next != null && next != first) {
      first.addSuppressed(next);
    }
    return first;
  }
}
