package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.testing.TestContexts;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One participant instance in one {@link SimulatedProcess}: one incarnation of a coordinator, made
 * by {@link ManualCoordinator#start()} or {@link ManualCoordinator#newIncarnation()}. Its methods
 * make the calls the coordinator makes, with the contexts it would pass, and check what the
 * participant returns for null; they keep track of the transactions begun and not yet finished,
 * so that {@link #close()} can abort them.
 *
 * <p>Threads: {@link #commit}, {@link #recoverAndCommit} and the bookkeeping behind them may be
 * called from another thread than the one that begins, writes and pre-commits later transactions,
 * as the committer thread of a {@link dev.twophase.Coordinator} does. Everything else is for one
 * thread at a time.
 *
 * @param <TXN> the participant's handle type
 * @param <CONTEXT> the participant's user context type ({@link Void} if none)
 */
@PublicEvolving
public final class Incarnation<TXN, CONTEXT> {

  private final ManualCoordinator<TXN, CONTEXT> coordinator;
  private final Participant<TXN, CONTEXT> participant;
  private final SimulatedProcess process;
  private final long epoch;
  private final Optional<CONTEXT> userContext;
  /** Begun or pre-committed, neither committed nor aborted; by identity of the handle. */
  private final List<TXN> unfinished = new ArrayList<>();
  /** The writer of each open transaction of a Writable participant, by identity of the handle. */
  private final IdentityHashMap<TXN, RecordWriter<?>> writers = new IdentityHashMap<>();
  private long sequence;
  private boolean closed;

  Incarnation(
      ManualCoordinator<TXN, CONTEXT> coordinator, Participant<TXN, CONTEXT> participant,
      SimulatedProcess process, long epoch, Optional<CONTEXT> userContext) {
    this.coordinator = coordinator;
    this.participant = participant;
    this.process = process;
    this.epoch = epoch;
    this.userContext = userContext;
  }

  /** The participant instance of this incarnation. */
  public Participant<TXN, CONTEXT> participant() {
    return participant;
  }

  /** The simulated process the participant lives in. */
  public SimulatedProcess process() {
    return process;
  }

  /** The coordinator id in this incarnation's contexts. */
  public String coordinatorId() {
    return coordinator.coordinatorId();
  }

  /** The participant name in this incarnation's contexts. */
  public String participantName() {
    return coordinator.participantName();
  }

  /** The owner epoch of this incarnation: 1 for the first, growing by one with each. */
  public long ownerEpoch() {
    return epoch;
  }

  /** The user context, as initialised by the first incarnation and restored for later ones. */
  public Optional<CONTEXT> userContext() {
    return userContext;
  }

  /**
   * The context the coordinator would pass for the transaction of {@code checkpointId} with this
   * {@code sequence} in this incarnation, without beginning anything: for a handle the resource
   * never saw, say.
   */
  public TransactionContext<CONTEXT> transactionContext(long checkpointId, long sequence) {
    return TestContexts.transaction(coordinatorId(), participantName(), TestContexts.LOG_ID, epoch,
        checkpointId, sequence, userContext.orElse(null));
  }

  // ------------------------------------------------------------------------- the protocol's calls

  /**
   * Begins the next transaction (the next checkpoint id and sequence number) and, for a
   * {@link Writable} participant, asks for its writer once, as the coordinator does.
   */
  public TXN begin() throws Exception {
    ensureLive("begin");
    TransactionContext<CONTEXT> context;
    synchronized (this) {
      context = transactionContext(coordinator.nextCheckpointId(), sequence++);
    }
    TXN transaction = participant.beginTransaction(context);
    assertNotNull(transaction, "beginTransaction returned null");
    synchronized (this) {
      unfinished.add(transaction);
    }
    if (participant instanceof Writable<?, ?> writable) {
      @SuppressWarnings("unchecked")
      Writable<Object, TXN> w = (Writable<Object, TXN>) writable;
      RecordWriter<Object> writer = w.writerFor(transaction);
      assertNotNull(writer, "writerFor returned null");
      synchronized (this) {
        writers.put(transaction, writer);
      }
    }
    return transaction;
  }

  /**
   * The writer {@link Writable#writerFor} returned for {@code transaction} (the handle
   * {@link #begin} returned), or empty if the participant is not {@code Writable} or the
   * transaction is no longer being written.
   *
   * @param <IN> the participant's record type
   */
  @SuppressWarnings("unchecked")
  public synchronized <IN> Optional<RecordWriter<IN>> writer(TXN transaction) {
    return Optional.ofNullable((RecordWriter<IN>) writers.get(transaction));
  }

  /**
   * Writes {@code record} into {@code transaction} through its writer.
   *
   * @throws UnsupportedOperationException if the participant is not {@link Writable}, or the
   *     transaction is not being written (it was pre-committed or aborted)
   */
  public <IN> void write(TXN transaction, IN record) throws Exception {
    Optional<RecordWriter<IN>> writer = writer(transaction);
    if (writer.isEmpty()) {
      throw new UnsupportedOperationException(
          participant instanceof Writable
              ? "no writer for " + transaction + ": it was pre-committed or aborted, or was not begun by this incarnation"
              : participant.getClass().getName() + " does not implement Writable: write records "
                  + "through its own API (the resource the handle gives access to)");
    }
    writer.get().write(record);
  }

  /** Pre-commits {@code transaction} and returns the handle to log and to commit. */
  public TXN preCommit(TXN transaction) throws Exception {
    ensureLive("preCommit");
    TXN committable = participant.preCommit(transaction);
    assertNotNull(committable, "preCommit returned null instead of the handle to commit");
    synchronized (this) {
      writers.remove(transaction);
      int i = indexOf(transaction);
      if (i >= 0) {
        unfinished.set(i, committable);
      }
    }
    return committable;
  }

  /** Commits {@code transaction}; thread-safe with respect to this incarnation's other calls. */
  public CommitOutcome commit(TXN transaction) throws Exception {
    ensureLive("commit");
    CommitOutcome outcome = participant.commit(transaction);
    assertNotNull(outcome, "commit returned null");
    forget(transaction);
    return outcome;
  }

  /** Aborts {@code transaction} (either of its handles). */
  public void abort(TXN transaction) throws Exception {
    ensureLive("abort");
    participant.abort(transaction);
    synchronized (this) {
      writers.remove(transaction);
    }
    forget(transaction);
  }

  /** {@code recoverAndCommit}, as at start-up; thread-safe like {@link #commit}. */
  public CommitOutcome recoverAndCommit(TXN transaction) throws Exception {
    ensureLive("recoverAndCommit");
    CommitOutcome outcome = participant.recoverAndCommit(transaction);
    assertNotNull(outcome, "recoverAndCommit returned null");
    return outcome;
  }

  /** {@code recoverAndAbort}, as at start-up. */
  public AbortOutcome recoverAndAbort(TXN transaction) throws Exception {
    ensureLive("recoverAndAbort");
    AbortOutcome outcome = participant.recoverAndAbort(transaction);
    assertNotNull(outcome, "recoverAndAbort returned null");
    return outcome;
  }

  /**
   * {@code finishRecoveringContext} with these handled transactions (the handles this incarnation
   * committed or aborted during its recovery, in order) and the last checkpoint id given so far.
   */
  public void finishRecovery(List<TXN> handled) throws Exception {
    ensureLive("finishRecovery");
    participant.finishRecoveringContext(TestContexts.recovery(
        coordinatorId(), participantName(), TestContexts.LOG_ID, epoch, handled,
        userContext.orElse(null), coordinator.lastCheckpointId()));
  }

  // ------------------------------------------------------------------------- the state log

  /** {@code transaction} as the state log would hold it, encoded by the participant's codec. */
  public LoggedHandle<TXN> log(TXN transaction) throws Exception {
    Codec<TXN> codec = participant.transactionCodec();
    assertNotNull(codec, "transactionCodec() returned null");
    byte[] bytes = codec.encode(transaction);
    assertNotNull(bytes, "transactionCodec().encode returned null for " + transaction);
    return new LoggedHandle<>(bytes, codec.version(), String.valueOf(transaction));
  }

  /** A handle logged by any incarnation, as this one reads it from the state log. */
  public TXN restore(LoggedHandle<TXN> logged) throws Exception {
    TXN transaction = participant.transactionCodec().decode(logged.bytes(), logged.version());
    assertNotNull(transaction, "transactionCodec().decode returned null for " + logged);
    return transaction;
  }

  // ------------------------------------------------------------------------- life cycle

  /** Transactions begun (or pre-committed) and neither committed nor aborted, oldest first. */
  public synchronized List<TXN> unfinished() {
    return List.copyOf(unfinished);
  }

  /**
   * Kills this incarnation's process, as {@code kill -9} would: only the kill actions registered
   * with its {@link SimulatedProcess} run; the participant is not told and must not be used
   * again. Idempotent.
   */
  public void kill() throws Exception {
    synchronized (this) {
      closed = true;
    }
    process.kill();
  }

  /** Whether this incarnation was killed. */
  public boolean isKilled() {
    return process.isKilled();
  }

  /**
   * Shuts this incarnation down cleanly, as {@code Coordinator.close()} does: aborts its
   * unfinished transactions (a failing abort is ignored, as the coordinator ignores it), closes the
   * participant and ends the process. Nothing happens if it was killed or closed before.
   *
   * @throws Exception if {@code close()} or the process's exit failed
   */
  public void close() throws Exception {
    List<TXN> toAbort;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toAbort = new ArrayList<>(unfinished);
    }
    try {
      for (TXN transaction : toAbort) {
        try {
          participant.abort(transaction);
        } catch (Exception ignored) {
          // as the coordinator: a failed abort is left to the resource's timeout or to recovery
        }
      }
      participant.close();
    } finally {
      process.exit();
    }
  }

  private synchronized void forget(TXN transaction) {
    int i = indexOf(transaction);
    if (i >= 0) {
      unfinished.remove(i);
    }
  }

  private int indexOf(TXN transaction) {
    for (int i = 0; i < unfinished.size(); i++) {
      if (unfinished.get(i) == transaction) {
        return i;
      }
    }
    return -1;
  }

  private void ensureLive(String call) {
    synchronized (this) {
      if (!closed) {
        return;
      }
    }
    throw new IllegalStateException(call + " on " + process.name() + ", which was "
        + (process.isKilled() ? "killed" : "closed") + ": a test must use a new incarnation");
  }

  @Override
  public String toString() {
    return "Incarnation{" + process.name() + ", epoch " + epoch + ", " + participant + "}";
  }
}
