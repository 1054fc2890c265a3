package dev.twophase.internal;

import dev.twophase.ApplicationState;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.IllegalStateTransitionException;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.ProtocolPoint;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionLostException;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.StateCodec.Blob;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol engine shared by both ways of driving a coordinator: it pre-commits, begins,
 * encodes the state record, commits and recovers. Where the decision is made durable (a
 * {@code StateLog} append, or another engine's checkpoint) and on which thread commits run is
 * left to {@link dev.twophase.Coordinator} and {@link dev.twophase.EmbeddedCoordinator}.
 *
 * <p>Threads: the application thread calls everything except {@link #commitCheckpoint}, which the
 * committer calls. They share only {@link #pending} (a concurrent map whose entries each have one
 * committing thread at a time), {@link #state} and {@link #failure} (volatile).
 */
public final class CoordinatorCore {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorCore.class);

  /** A participant as registered with a builder. */
  public record Registration(String name, Participant<?, ?> participant) {}

  private final String coordinatorId;
  private final List<Slot<Object, Object>> slots;
  private final Map<Participant<?, ?>, Slot<Object, Object>> byParticipant;
  private final CoordinatorConfig config;
  private final CoordinatorListener listener;
  private final ApplicationState<Object> applicationState;

  /** Decided, not yet fully committed checkpoints, in id order. */
  private final ConcurrentSkipListMap<Long, PendingCheckpoint> pending = new ConcurrentSkipListMap<>();

  private volatile CoordinatorState state = CoordinatorState.RECOVERING;
  private volatile TwoPhaseException failure;

  private long ownerEpoch;
  private long lastCheckpointId;
  private Blob lastApplicationSnapshot;
  private long lastCheckpointAtMillis;
  private boolean checkpointing;

  @SuppressWarnings("unchecked")
  public CoordinatorCore(
      String coordinatorId,
      List<Registration> registrations,
      CoordinatorConfig config,
      CoordinatorListener listener,
      ApplicationState<?> applicationState) {
    this.coordinatorId = requireId(coordinatorId);
    this.config = Objects.requireNonNull(config, "config");
    this.listener = SafeListener.wrap(listener);
    this.applicationState = (ApplicationState<Object>) applicationState;
    if (registrations.isEmpty()) {
      throw new IllegalArgumentException(
          "coordinator '" + coordinatorId + "' has no participants; add one with participant(name, p)");
    }
    List<Slot<Object, Object>> list = new ArrayList<>();
    Map<Participant<?, ?>, Slot<Object, Object>> map = new java.util.IdentityHashMap<>();
    Set<String> names = new HashSet<>();
    for (Registration r : registrations) {
      if (!names.add(r.name())) {
        throw new IllegalArgumentException("participant name '" + r.name() + "' is used twice");
      }
      if (map.containsKey(r.participant())) {
        throw new IllegalArgumentException(
            "participant '" + r.name() + "' is the same instance as another participant; "
                + "register each instance once");
      }
      Slot<Object, Object> slot =
          new Slot<>(
              list.size(),
              r.name(),
              (Participant<Object, Object>) r.participant(),
              config.transactionTimeout().orElse(null));
      list.add(slot);
      map.put(r.participant(), slot);
    }
    this.slots = List.copyOf(list);
    this.byParticipant = map;
  }

  /** Checks a coordinator or participant name the way builders report it. */
  public static String requireId(String id) {
    Objects.requireNonNull(id, "coordinatorId");
    if (id.isBlank()) {
      throw new IllegalArgumentException("coordinatorId must not be blank");
    }
    return id;
  }

  public String coordinatorId() {
    return coordinatorId;
  }

  public CoordinatorState state() {
    return state;
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

  /** Tells the configured {@link dev.twophase.FaultInjector} that {@code point} is reached. */
  public void reached(ProtocolPoint point) {
    config.faultInjector().reached(point.name());
  }

  public ConcurrentSkipListMap<Long, PendingCheckpoint> pending() {
    return pending;
  }

  // ---------------------------------------------------------------- state machine

  /** Moves to {@code to}, or throws if the transition is illegal. */
  public synchronized void transition(CoordinatorState to) {
    CoordinatorState from = state;
    if (!from.canTransitionTo(to)) {
      throw new IllegalStateTransitionException(from, to, "moving to " + to);
    }
    state = to;
    LOG.debug("coordinator {}: {} -> {}", coordinatorId, from, to);
    listener.onStateTransition(coordinatorId, from, to);
  }

  /** Stops the coordinator for good; the next call on the application thread throws {@code cause}. */
  public synchronized void fail(TwoPhaseException cause) {
    if (failure == null) {
      failure = cause;
    }
    if (state.canTransitionTo(CoordinatorState.FAILED)) {
      LOG.error("coordinator {} failed; close it and start a new one to recover", coordinatorId, cause);
      transition(CoordinatorState.FAILED);
    }
    // Their commits will not happen in this process (the next start commits them): waiters learn
    // why, after the state says FAILED.
    for (PendingCheckpoint p : pending.values()) {
      p.committed.completeExceptionally(cause);
    }
  }

  /** Throws the failure that stopped the coordinator, or if it is not in one of {@code allowed}. */
  public void ensure(String operation, CoordinatorState... allowed) {
    TwoPhaseException f = failure;
    if (f != null) {
      throw new FatalTwoPhaseException(
          operation + " refused: coordinator '" + coordinatorId + "' failed: " + f.getMessage(),
          f,
          f.checkpointId().orElse(-1),
          f.participant().orElse(null));
    }
    CoordinatorState s = state;
    for (CoordinatorState a : allowed) {
      if (s == a) {
        return;
      }
    }
    throw new IllegalStateTransitionException(s, null, operation);
  }

  // ---------------------------------------------------------------- outputs

  public <T> T currentTransaction(Participant<T, ?> participant) {
    ensure("currentTransaction", CoordinatorState.RUNNING);
    @SuppressWarnings("unchecked")
    T current = (T) slot(participant).current;
    return current;
  }

  public <IN> Output<IN> output(Participant<?, ?> participant) {
    Slot<Object, Object> slot = slot(participant);
    if (slot.writable == null) {
      throw new IllegalArgumentException(
          "participant '" + slot.name + "' does not implement Writable; write through the handle "
              + "returned by currentTransaction(participant) instead");
    }
    return new SlotOutput<>(this, slot);
  }

  private Slot<Object, Object> slot(Participant<?, ?> participant) {
    Slot<Object, Object> slot = byParticipant.get(Objects.requireNonNull(participant, "participant"));
    if (slot == null) {
      throw new IllegalArgumentException(
          "this participant instance is not registered with coordinator '" + coordinatorId + "'");
    }
    return slot;
  }

  /** The per-record path: a field read, the participant's write, a counter. Nothing allocated. */
  private static final class SlotOutput<IN> implements Output<IN> {
    private final CoordinatorCore core;
    private final Slot<Object, Object> slot;

    SlotOutput(CoordinatorCore core, Slot<Object, Object> slot) {
      this.core = core;
      this.slot = slot;
    }

    @Override
    public void write(IN record) {
      if (record == null) {
        throw new NullPointerException(
            "record must not be null (participant '" + slot.name + "' of coordinator '"
                + core.coordinatorId + "')");
      }
      if (core.state != CoordinatorState.RUNNING) {
        core.ensure("write", CoordinatorState.RUNNING);
      }
      try {
        slot.writable.write(slot.current, record);
      } catch (RuntimeException e) {
        throw e instanceof TwoPhaseException ? e : writeFailed(e);
      } catch (Exception e) {
        throw writeFailed(e);
      }
      slot.recordsSinceCheckpoint++;
    }

    private TwoPhaseException writeFailed(Exception e) {
      return new TwoPhaseException(
          "participant '" + slot.name + "' could not write a record into the transaction of "
              + "checkpoint " + slot.currentCheckpointId + " (" + slot.current + "): " + e.getMessage(),
          e,
          slot.currentCheckpointId,
          slot.name);
    }

    @Override
    public String toString() {
      return "Output[" + core.coordinatorId + "/" + slot.name + "]";
    }
  }

  /**
   * The most records any one output took since the last checkpoint: with every input record
   * written to each output, the number of input records; in general, the size of the largest
   * transaction.
   */
  public long recordsSinceCheckpoint() {
    long max = 0;
    for (Slot<Object, Object> slot : slots) {
      max = Math.max(max, slot.recordsSinceCheckpoint);
    }
    return max;
  }

  private void resetRecordCounts() {
    for (Slot<Object, Object> slot : slots) {
      slot.recordsSinceCheckpoint = 0;
    }
  }

  public long lastCheckpointAtMillis() {
    return lastCheckpointAtMillis;
  }

  // ---------------------------------------------------------------- recovery

  /**
   * Start-up: commits what {@code record} holds as decided and not yet completed, aborts what it
   * holds as open, lets every participant clean up, restores the application.
   *
   * @param record the last state, or null on a first start
   * @param lastCompleted highest checkpoint id known to be fully committed
   * @param completions told the highest id this recovery committed, for a completion mark
   */
  public void recover(
      CoordinatorRecord record, long lastCompleted, long ownerEpoch, LongConsumer completions)
      throws Exception {
    this.ownerEpoch = ownerEpoch;
    Map<String, ParticipantRecord> restored = new LinkedHashMap<>();
    if (record != null) {
      if (!record.coordinatorId().equals(coordinatorId)) {
        throw new FatalTwoPhaseException(
            "the restored state belongs to coordinator '" + record.coordinatorId()
                + "', not to '" + coordinatorId + "'");
      }
      for (ParticipantRecord p : record.participants()) {
        restored.put(p.name(), p);
      }
      List<String> unknown = new ArrayList<>(restored.keySet());
      slots.forEach(s -> unknown.remove(s.name));
      if (!unknown.isEmpty()) {
        throw new FatalTwoPhaseException(
            "the state of coordinator '" + coordinatorId + "' (checkpoint " + record.checkpointId()
                + ") holds participants " + unknown + " that are not configured; they may have "
                + "pending transactions. Register them again, with the same names, to recover");
      }
      lastCheckpointId = record.checkpointId();
      lastApplicationSnapshot = record.application();
    }
    LOG.info(
        "coordinator {} recovering: epoch {}, last checkpoint {}, last completed {}",
        coordinatorId, ownerEpoch, lastCheckpointId, lastCompleted);

    List<List<Object>> handled = new ArrayList<>();
    for (Slot<Object, Object> slot : slots) {
      handled.add(new ArrayList<>());
      ParticipantRecord p = restored.get(slot.name);
      if (p != null) {
        // As in Flink: a restored participant keeps its (possibly empty) context; only a
        // participant new to this log initialises one.
        slot.context = p.context() == null
            ? Optional.empty()
            : Optional.ofNullable(decode(slot.contextCodec, p.context(), slot, "context"));
      } else {
        Optional<Object> initial =
            slot.participant.initializeUserContext(
                new Contexts.Participant(coordinatorId, slot.name, ownerEpoch));
        slot.context = initial == null ? Optional.empty() : initial;
      }
    }

    // Decided checkpoints not known complete: commit, in checkpoint order, then participant order.
    TreeMap<Long, Object[][]> toCommit = new TreeMap<>();
    for (Slot<Object, Object> slot : slots) {
      ParticipantRecord p = restored.get(slot.name);
      if (p == null || p.pending() == null) {
        continue;
      }
      for (HandleRecord h : p.pending()) {
        if (h.checkpointId() <= lastCompleted) {
          continue;
        }
        Object handle = decode(slot.transactionCodec, new Blob(p.transactionCodecVersion(), h.handle()), slot, "handle");
        toCommit.computeIfAbsent(h.checkpointId(), k -> new Object[slots.size()][])[slot.index] =
            new Object[] {handle, h.begunAtMillis()};
      }
    }
    long highestCommitted = 0;
    for (Map.Entry<Long, Object[][]> e : toCommit.entrySet()) {
      long id = e.getKey();
      for (Slot<Object, Object> slot : slots) {
        Object[] h = e.getValue()[slot.index];
        if (h == null) {
          continue;
        }
        RecoveryAction.Kind kind = commitOne(slot, id, h[0], (Long) h[1], true);
        handled.get(slot.index).add(h[0]);
        LOG.info("coordinator {} recovery: checkpoint {} participant {} {}: {}", coordinatorId, id, slot.name, h[0], kind);
        listener.onRecoveryHandled(new RecoveryAction(coordinatorId, id, slot.name, String.valueOf(h[0]), kind));
        reached(ProtocolPoint.DURING_RECOVERY_COMMIT);
      }
      highestCommitted = id;
    }
    if (highestCommitted > 0) {
      completions.accept(highestCommitted);
    }

    // Transactions open when the last state was written: never decided, so abort.
    for (Slot<Object, Object> slot : slots) {
      ParticipantRecord p = restored.get(slot.name);
      if (p == null || p.current() == null) {
        continue;
      }
      HandleRecord h = p.current();
      Object handle = decode(slot.transactionCodec, new Blob(p.transactionCodecVersion(), h.handle()), slot, "handle");
      try {
        slot.participant.recoverAndAbort(handle);
      } catch (FatalTwoPhaseException ex) {
        throw ex;
      } catch (Exception ex) {
        throw new RetriableTwoPhaseException(
            "recoverAndAbort of " + handle + " (begun for checkpoint " + h.checkpointId()
                + ") failed in participant '" + slot.name + "'; start-up stopped, try again",
            ex, h.checkpointId(), slot.name);
      }
      handled.get(slot.index).add(handle);
      LOG.info("coordinator {} recovery: aborted {} of participant {} (begun for checkpoint {})",
          coordinatorId, handle, slot.name, h.checkpointId());
      listener.onRecoveryHandled(new RecoveryAction(
          coordinatorId, h.checkpointId(), slot.name, String.valueOf(handle), RecoveryAction.Kind.ABORTED));
    }

    for (Slot<Object, Object> slot : slots) {
      try {
        slot.participant.finishRecoveringContext(new Contexts.Recovery<>(
            coordinatorId, slot.name, ownerEpoch, handled.get(slot.index), slot.context, lastCheckpointId));
      } catch (FatalTwoPhaseException ex) {
        throw ex;
      } catch (Exception ex) {
        throw new RetriableTwoPhaseException(
            "finishRecoveringContext failed in participant '" + slot.name + "'; start-up stopped",
            ex, lastCheckpointId, slot.name);
      }
    }
    restoreApplication();
  }

  private Object decode(Codec<Object> codec, Blob blob, Slot<?, ?> slot, String what) {
    try {
      return codec.decode(blob.bytes(), blob.version());
    } catch (Exception e) {
      throw new FatalTwoPhaseException(
          "participant '" + slot.name + "' cannot decode its " + what + " (codec version "
              + blob.version() + ") from the state of coordinator '" + coordinatorId + "': "
              + e.getMessage() + "; use a codec that reads this version",
          e, lastCheckpointId, slot.name);
    }
  }

  private void restoreApplication() throws Exception {
    if (applicationState == null || lastApplicationSnapshot == null) {
      return;
    }
    Object snapshot;
    try {
      snapshot =
          applicationState.codec().decode(lastApplicationSnapshot.bytes(), lastApplicationSnapshot.version());
    } catch (Exception e) {
      throw new FatalTwoPhaseException(
          "cannot decode the application snapshot of checkpoint " + lastCheckpointId
              + " of coordinator '" + coordinatorId + "': " + e.getMessage(), e, lastCheckpointId, null);
    }
    applicationState.restore(snapshot, lastCheckpointId);
  }

  /** Begins a transaction in every participant, to be pre-committed in {@code checkpointId}. */
  public void beginAll(long checkpointId) throws Exception {
    for (Slot<Object, Object> slot : slots) {
      Object handle;
      try {
        handle = slot.participant.beginTransaction(new Contexts.Transaction<>(
            coordinatorId, slot.name, ownerEpoch, checkpointId, slot.sequence++, slot.context));
      } catch (FatalTwoPhaseException e) {
        throw e;
      } catch (Exception e) {
        throw new RetriableTwoPhaseException(
            "beginTransaction failed in participant '" + slot.name + "' for checkpoint " + checkpointId,
            e, checkpointId, slot.name);
      }
      if (handle == null) {
        throw new IllegalStateException("participant '" + slot.name + "' returned a null handle from beginTransaction");
      }
      slot.current = handle;
      slot.currentBegunAt = config.clock().millis();
      slot.currentCheckpointId = checkpointId;
      LOG.debug("coordinator {}: began {} in {} for checkpoint {}", coordinatorId, handle, slot.name, checkpointId);
    }
    lastCheckpointAtMillis = config.clock().millis();
  }

  // ---------------------------------------------------------------- checkpoint

  /** A checkpoint whose participants pre-committed, ready to be decided by making it durable. */
  public record Prepared(PendingCheckpoint checkpoint, byte[] state, Blob application) {}

  /**
   * Pre-commits every current transaction, begins the next ones (unless finished), snapshots the
   * application and encodes the state record of checkpoint {@code id}. On failure before the
   * record exists, aborts that checkpoint's transactions everywhere (presumed abort), begins new
   * ones, tells the application to replay, and throws {@link CheckpointFailedException}.
   */
  public Prepared prepare(long id) {
    ensure("checkpoint", CoordinatorState.RUNNING, CoordinatorState.FINISHED);
    if (checkpointing) {
      throw new IllegalStateException("checkpoint " + id + " started while another one is running");
    }
    if (id <= lastCheckpointId) {
      throw new IllegalArgumentException(
          "checkpoint id " + id + " is not greater than the last one, " + lastCheckpointId);
    }
    checkpointing = true;
    try {
      return doPrepare(id);
    } finally {
      checkpointing = false;
    }
  }

  private Prepared doPrepare(long id) {
    listener.onCheckpointStarted(coordinatorId, id);
    LOG.debug("coordinator {}: checkpoint {} started", coordinatorId, id);
    reached(ProtocolPoint.BEFORE_PRE_COMMIT);
    PendingCheckpoint checkpoint = new PendingCheckpoint(id, slots.size());
    for (Slot<Object, Object> slot : slots) {
      if (slot.current == null) {
        continue;
      }
      try {
        slot.participant.preCommit(slot.current);
      } catch (Exception e) {
        throw abortCheckpoint(id, slot.name, "preCommit failed", e, null);
      }
      try {
        checkpoint.set(slot.index, slot.current, slot.encode(slot.current), slot.currentBegunAt);
      } catch (Exception e) {
        throw abortCheckpoint(id, slot.name, "its transaction codec could not encode the handle", e, null);
      }
      if (slot.index < slots.size() - 1) {
        reached(ProtocolPoint.BETWEEN_PRE_COMMITS);
      }
    }
    boolean next = state == CoordinatorState.RUNNING;
    if (next) {
      try {
        beginAll(id + 1);
      } catch (Exception e) {
        abortQuietly(checkpoint, id);
        abortCurrentQuietly();
        clearCurrent();
        // Without new transactions the coordinator cannot go on: stop, and let a restart begin.
        TwoPhaseException failure = e instanceof FatalTwoPhaseException
            ? (FatalTwoPhaseException) e
            : new FatalTwoPhaseException(
                "checkpoint " + id + " of coordinator '" + coordinatorId + "' was aborted because "
                    + "the next transactions could not be begun: " + e.getMessage()
                    + "; close this coordinator and start a new one",
                e, id, e instanceof TwoPhaseException ? ((TwoPhaseException) e).participant().orElse(null) : null);
        listener.onCheckpointFailed(coordinatorId, id, failure);
        fail(failure);
        throw failure;
      }
    } else {
      clearCurrent();
    }
    reached(ProtocolPoint.AFTER_PRE_COMMITS);
    Blob application;
    try {
      application = snapshotApplication(id);
    } catch (Exception e) {
      throw abortCheckpoint(id, null, "the application snapshot failed", e, checkpoint);
    }
    byte[] state;
    try {
      state = encodeState(id, checkpoint, application);
    } catch (Exception e) {
      throw abortCheckpoint(id, null, "the state record could not be encoded (a handle or context "
          + "codec failed)", e, checkpoint);
    }
    return new Prepared(checkpoint, state, application);
  }

  /**
   * Records that checkpoint {@code prepared} is decided: from now on its transactions will be
   * committed, in this process or by recovery.
   */
  public PendingCheckpoint decided(Prepared prepared) {
    PendingCheckpoint checkpoint = prepared.checkpoint();
    lastCheckpointId = checkpoint.id;
    lastApplicationSnapshot = prepared.application();
    lastCheckpointAtMillis = config.clock().millis();
    resetRecordCounts();
    checkpoint.decidedAtNanos = System.nanoTime();
    pending.put(checkpoint.id, checkpoint);
    return checkpoint;
  }

  /**
   * The decision's outcome is unknown (the log append failed): neither commit nor abort the
   * pre-committed transactions, stop, and let recovery read what the log holds.
   */
  public TwoPhaseException decisionUnknown(Prepared prepared, Exception cause) {
    TwoPhaseException failure = new FatalTwoPhaseException(
        "the decision of checkpoint " + prepared.checkpoint().id + " of coordinator '" + coordinatorId
            + "' may or may not be durable (" + cause.getMessage() + "); close this coordinator "
            + "and start a new one: recovery commits it if the record reached the log, else aborts it",
        cause, prepared.checkpoint().id, null);
    listener.onCheckpointFailed(coordinatorId, prepared.checkpoint().id, failure);
    fail(failure);
    return failure;
  }

  private RuntimeException abortCheckpoint(
      long id, String participant, String what, Exception cause, PendingCheckpoint prepared) {
    if (cause instanceof FatalTwoPhaseException) {
      listener.onCheckpointFailed(coordinatorId, id, cause);
      fail((FatalTwoPhaseException) cause);
      return (FatalTwoPhaseException) cause;
    }
    LOG.warn("coordinator {}: checkpoint {} failed ({}{}); aborting its transactions in every participant",
        coordinatorId, id, what, participant == null ? "" : " in participant '" + participant + "'", cause);
    if (prepared != null) {
      abortQuietly(prepared, id); // the next transactions were begun already and stay current
    } else {
      abortCurrentQuietly();
      clearCurrent();
    }
    CheckpointFailedException failure = new CheckpointFailedException(
        "checkpoint " + id + " of coordinator '" + coordinatorId + "' failed: " + what
            + (participant == null ? "" : " in participant '" + participant + "'") + ": "
            + cause.getMessage() + ". Its transactions were aborted; the records written since "
            + "checkpoint " + lastCheckpointId + " must be written again (the application state "
            + "was restored to it)",
        cause, id, participant, lastCheckpointId);
    listener.onCheckpointFailed(coordinatorId, id, failure);
    try {
      if (prepared == null && state == CoordinatorState.RUNNING) {
        beginAll(id + 1);
      }
      resetRecordCounts();
      restoreApplication();
    } catch (Exception e) {
      TwoPhaseException fatal = new FatalTwoPhaseException(
          "after checkpoint " + id + " failed, the coordinator could not start over: " + e.getMessage(),
          e, id, null);
      fatal.addSuppressed(failure);
      fail(fatal);
      return fatal;
    }
    return failure;
  }

  private Blob snapshotApplication(long id) throws Exception {
    if (applicationState == null) {
      return null;
    }
    Object snapshot = applicationState.snapshot(id);
    Codec<Object> codec = applicationState.codec();
    return new Blob(codec.version(), codec.encode(snapshot));
  }

  /**
   * Encodes the state record: every pending checkpoint (plus {@code extra}, the one being
   * decided), the current transactions, contexts and the application snapshot.
   */
  public byte[] encodeState(long checkpointId, PendingCheckpoint extra, Blob application) throws Exception {
    List<ParticipantRecord> participants = new ArrayList<>(slots.size());
    for (Slot<Object, Object> slot : slots) {
      List<HandleRecord> handles = new ArrayList<>();
      for (PendingCheckpoint p : pending.values()) {
        p.addHandle(slot.index, handles);
      }
      if (extra != null) {
        extra.addHandle(slot.index, handles);
      }
      HandleRecord current = slot.current == null
          ? null
          : new HandleRecord(slot.currentCheckpointId, slot.currentBegunAt, slot.encode(slot.current));
      Blob context = slot.context.isPresent()
          ? new Blob(slot.contextCodec.version(), slot.contextCodec.encode(slot.context.get()))
          : null;
      participants.add(new ParticipantRecord(
          slot.name, slot.transactionCodec.version(), context, handles, current));
    }
    return StateCodec.encode(new CoordinatorRecord(
        StateCodec.FORMAT, coordinatorId, checkpointId, ownerEpoch, config.clock().millis(),
        state == CoordinatorState.FINISHED, participants, application));
  }

  /** The state record at start-up: nothing pending, the new transactions, the last snapshot. */
  public byte[] encodeInitialState() throws Exception {
    return encodeState(lastCheckpointId, null, lastApplicationSnapshot);
  }

  // ---------------------------------------------------------------- commit

  /**
   * Commits a decided checkpoint in participant order, resuming after the participants already
   * done. Throws on the first failure; the checkpoint stays pending and a later call resumes.
   */
  public void commitCheckpoint(PendingCheckpoint checkpoint) {
    for (int i = checkpoint.committedThrough; i < slots.size(); i++) {
      Object handle = checkpoint.handles[i];
      if (handle != null) {
        Slot<Object, Object> slot = slots.get(i);
        if (commitOne(slot, checkpoint.id, handle, checkpoint.begunAt[i], false)
            == RecoveryAction.Kind.LOST_IGNORED) {
          listener.onRecoveryHandled(new RecoveryAction(
              coordinatorId, checkpoint.id, slot.name, String.valueOf(handle), RecoveryAction.Kind.LOST_IGNORED));
        }
      }
      checkpoint.committedThrough = i + 1;
      if (i < slots.size() - 1) {
        reached(ProtocolPoint.BETWEEN_COMMITS);
      }
    }
    reached(ProtocolPoint.AFTER_COMMITS);
  }

  /** Marks a fully committed checkpoint done: out of the pending set, future completed. */
  public void completed(PendingCheckpoint checkpoint) {
    pending.remove(checkpoint.id);
    Duration took = Duration.ofNanos(System.nanoTime() - checkpoint.decidedAtNanos);
    LOG.debug("coordinator {}: checkpoint {} committed in {}", coordinatorId, checkpoint.id, took);
    listener.onCheckpointCommitted(coordinatorId, checkpoint.id, took);
    checkpoint.committed.complete(null);
  }

  private RecoveryAction.Kind commitOne(
      Slot<Object, Object> slot, long checkpointId, Object handle, long begunAt, boolean recovery) {
    Duration age = Duration.ofMillis(Math.max(0, config.clock().millis() - begunAt));
    warnIfOld(slot, checkpointId, handle, age);
    CommitOutcome outcome;
    try {
      outcome = recovery ? slot.participant.recoverAndCommit(handle) : slot.participant.commit(handle);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      // As in Flink, only recovery gives up on a failing old transaction; a running coordinator
      // retries, since a transient failure may still pass.
      if (recovery && ignorable(slot, age)) {
        logIgnoredLoss(slot, checkpointId, handle, age, e);
        return RecoveryAction.Kind.LOST_IGNORED;
      }
      throw new RetriableTwoPhaseException(
          (recovery ? "recoverAndCommit" : "commit") + " of " + handle + " (checkpoint " + checkpointId
              + ") failed in participant '" + slot.name + "': " + e.getMessage()
              + "; the transaction stays pending and is retried",
          e, checkpointId, slot.name);
    }
    if (outcome == null) {
      throw new FatalTwoPhaseException(
          "participant '" + slot.name + "' returned null from commit; return a CommitOutcome",
          null, checkpointId, slot.name);
    }
    switch (outcome) {
      case COMMITTED:
        return RecoveryAction.Kind.COMMITTED;
      case ALREADY_COMMITTED:
        return RecoveryAction.Kind.ALREADY_COMMITTED;
      default:
        if (ignorable(slot, age)) {
          logIgnoredLoss(slot, checkpointId, handle, age, null);
          return RecoveryAction.Kind.LOST_IGNORED;
        }
        throw new TransactionLostException(
            "transaction " + handle + " of decided checkpoint " + checkpointId + " can no longer be "
                + "committed in participant '" + slot.name + "' (age " + age + ", timeout "
                + (slot.timeout == null ? "none" : slot.timeout) + "): its records are missing there. "
                + "Raise the resource's transaction timeout or checkpoint more often; to drop such "
                + "transactions instead, enable ignoreFailuresAfterTransactionTimeout",
            checkpointId, slot.name);
    }
  }

  private boolean ignorable(Slot<?, ?> slot, Duration age) {
    return config.ignoreFailuresAfterTransactionTimeout()
        && slot.timeout != null
        && age.compareTo(slot.timeout) >= 0;
  }

  private void logIgnoredLoss(Slot<?, ?> slot, long checkpointId, Object handle, Duration age, Exception e) {
    LOG.error(
        "coordinator {}: transaction {} of checkpoint {} in participant '{}' could not be committed "
            + "and is older than its timeout ({} >= {}); ignoring it as configured. Data loss might "
            + "have occurred.",
        coordinatorId, handle, checkpointId, slot.name, age, slot.timeout, e);
  }

  private void warnIfOld(Slot<?, ?> slot, long checkpointId, Object handle, Duration age) {
    double ratio = config.transactionTimeoutWarningRatio();
    if (ratio < 0 || slot.timeout == null) {
      return;
    }
    if (age.toMillis() >= ratio * slot.timeout.toMillis()) {
      LOG.warn(
          "coordinator {}: transaction {} of checkpoint {} in participant '{}' is {} old, {}% of "
              + "its timeout {}; it may expire before it is committed",
          coordinatorId, handle, checkpointId, slot.name, age,
          Math.round(100.0 * age.toMillis() / slot.timeout.toMillis()), slot.timeout);
      listener.onTransactionTimeoutWarning(new CoordinatorListener.TimeoutWarning(
          coordinatorId, checkpointId, slot.name, String.valueOf(handle), age, slot.timeout));
    }
  }

  // ---------------------------------------------------------------- finish, abort, close

  /** End of input: every participant flushes into its current transaction. */
  public void finishProcessing() {
    ensure("finish", CoordinatorState.RUNNING);
    for (Slot<Object, Object> slot : slots) {
      try {
        slot.participant.finishProcessing(slot.current);
      } catch (Exception e) {
        TwoPhaseException failure = new FatalTwoPhaseException(
            "finishProcessing failed in participant '" + slot.name + "'", e, lastCheckpointId + 1, slot.name);
        fail(failure);
        throw failure;
      }
    }
    transition(CoordinatorState.FINISHED);
  }

  private void abortQuietly(PendingCheckpoint checkpoint, long id) {
    for (Slot<Object, Object> slot : slots) {
      Object handle = checkpoint.handles[slot.index];
      if (handle != null) {
        abortQuietly(slot, handle, id);
      }
    }
  }

  /** Aborts every open transaction; failures are logged (the resource or recovery cleans up). */
  public void abortCurrentQuietly() {
    for (Slot<Object, Object> slot : slots) {
      if (slot.current != null) {
        abortQuietly(slot, slot.current, slot.currentCheckpointId);
      }
    }
  }

  private void abortQuietly(Slot<Object, Object> slot, Object handle, long id) {
    try {
      slot.participant.abort(handle);
      LOG.debug("coordinator {}: aborted {} in {} (checkpoint {})", coordinatorId, handle, slot.name, id);
    } catch (Exception e) {
      LOG.warn("coordinator {}: abort of {} in participant '{}' (checkpoint {}) failed; the "
          + "participant's start-up cleanup or the resource's timeout will remove it",
          coordinatorId, handle, slot.name, id, e);
    }
  }

  public void clearCurrent() {
    for (Slot<Object, Object> slot : slots) {
      slot.current = null;
    }
  }

  /**
   * Undoes a start that failed part-way: aborts what was begun, closes the participants, and
   * returns the exception to throw (a participant's own {@link TwoPhaseException} as it is).
   */
  public TwoPhaseException abandonStart(Exception cause) {
    abortCurrentQuietly();
    clearCurrent();
    closeParticipants();
    if (state.canTransitionTo(CoordinatorState.CLOSED)) {
      transition(CoordinatorState.CLOSED);
    }
    return cause instanceof TwoPhaseException
        ? (TwoPhaseException) cause
        : new RetriableTwoPhaseException(
            "start-up of coordinator '" + coordinatorId + "' failed: " + cause.getMessage(), cause);
  }

  /** Closes every participant, logging failures. */
  public void closeParticipants() {
    for (Slot<Object, Object> slot : slots) {
      try {
        slot.participant.close();
      } catch (Exception e) {
        LOG.warn("coordinator {}: closing participant '{}' failed", coordinatorId, slot.name, e);
      }
    }
  }

  /** One decided checkpoint's transactions, per participant index. */
  public static final class PendingCheckpoint {
    final long id;
    final Object[] handles;
    final byte[][] encoded;
    final long[] begunAt;
    /** Participants before this index are committed; only the committing thread writes it. */
    volatile int committedThrough;
    long decidedAtNanos;
    final CompletableFuture<Void> committed = new CompletableFuture<>();

    PendingCheckpoint(long id, int participants) {
      this.id = id;
      this.handles = new Object[participants];
      this.encoded = new byte[participants][];
      this.begunAt = new long[participants];
    }

    void set(int index, Object handle, byte[] bytes, long begun) {
      handles[index] = handle;
      encoded[index] = bytes;
      begunAt[index] = begun;
    }

    void addHandle(int index, List<HandleRecord> into) {
      if (handles[index] != null) {
        into.add(new HandleRecord(id, begunAt[index], encoded[index]));
      }
    }

    public long id() {
      return id;
    }

    /** The handle the next commit attempt starts with, for reports; null when all are done. */
    public Object nextHandle() {
      int i = committedThrough;
      return i < handles.length ? handles[i] : null;
    }

    public CompletableFuture<Void> committed() {
      return committed;
    }
  }
}
