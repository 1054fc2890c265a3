package dev.twophase.testing;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.Codecs;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A {@link Participant} on an {@link InMemoryResource}, for tests: the twophase counterpart of
 * Kafka's {@code MockProducer}. The resource plays the external system; this object plays one
 * process's client of it. A new instance on the same resource is a new process after a crash.
 *
 * <pre>{@code
 * InMemoryResource<String> resource = new InMemoryResource<>();
 * InMemoryParticipant<String> participant = new InMemoryParticipant<>(resource);
 * // or: InMemoryParticipant.builder(resource).transactionTimeout(Duration.ofMinutes(1)).build();
 * participant.failNextCommits(2, new IOException("broker away"));
 * ...
 * assertEquals(List.of("a", "b"), resource.committedRecords());
 * }</pre>
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li>{@code beginTransaction} creates an OPEN transaction named {@link
 *       TransactionContext#transactionName()}; a name in use fails with {@link
 *       IllegalStateException}.
 *   <li>{@code write} buffers the record; a null record fails with {@link NullPointerException} and
 *       the transaction stays usable. Writing to a transaction that is not OPEN fails.
 *   <li>{@code preCommit}: OPEN to PREPARED; repeated, a no-op; anything else fails.
 *   <li>{@code commit} and {@code recoverAndCommit}: PREPARED to COMMITTED ({@link
 *       CommitOutcome#COMMITTED}, records appended to the resource's committed list); COMMITTED
 *       gives {@link CommitOutcome#ALREADY_COMMITTED}; ABORTED, expired or unknown give {@link
 *       CommitOutcome#LOST}; an OPEN transaction (never pre-committed) is a protocol violation:
 *       {@link IllegalStateException}.
 *   <li>{@code abort}: OPEN or PREPARED to ABORTED; unknown or ABORTED, a no-op; COMMITTED is a
 *       protocol violation ({@link IllegalStateException}). {@code recoverAndAbort} is the same
 *       except that a COMMITTED transaction is left alone and reported
 *       ({@link AbortOutcome#COMMITTED}); an unknown or ABORTED one is {@link AbortOutcome#NOT_FOUND}.
 *   <li>{@code finishRecoveringContext} aborts every OPEN or PREPARED transaction whose name the
 *       context calls its own ({@link RecoveryContext#isOwnTransactionName}) that is not among the
 *       handled transactions; other coordinators', participants' and logs' transactions are
 *       untouched.
 *   <li>With a {@linkplain Builder#transactionTimeout transaction timeout}, the resource expires an
 *       in-progress transaction older than the timeout (by the {@linkplain Builder#clock clock})
 *       when it is next written, pre-committed or committed: writes and pre-commits then fail and
 *       commits report LOST.
 *   <li>Fencing (on by default, see {@link InMemoryResource}): an instance that announced an owner
 *       epoch lower than the newest one for its coordinator and participant name gets {@link
 *       dev.twophase.FencedException} from every call on that owner's transactions.
 *   <li>After {@link #close()}, every call fails with {@link IllegalStateException}.
 * </ul>
 *
 * <h2>Fault injection</h2>
 * The {@code failNext...} methods queue failures: the next matching call throws the given
 * exception <em>before</em> doing anything (the same instance each time when queued more than
 * once). {@link #failNextCommitAfterApplying} commits first and then throws, as when the
 * acknowledgement is lost. {@link #loseOnNextCommit} expires the transaction just before the next
 * commit, which then reports LOST. Commit faults apply to {@code commit} and {@code
 * recoverAndCommit}; abort faults to {@code abort} and {@code recoverAndAbort}. Faults may be
 * queued from any thread.
 *
 * @param <T> record type
 */
@PublicEvolving
public final class InMemoryParticipant<T>
    implements Participant<InMemoryTransaction, Void>, Writable<T, InMemoryTransaction> {

  /** The calls that {@link #failNext} can make fail. */
  public enum Operation {
    /** {@code beginTransaction}. */
    BEGIN,
    /** {@code write}. */
    WRITE,
    /** {@code preCommit}. */
    PRE_COMMIT,
    /** {@code commit} and {@code recoverAndCommit}. */
    COMMIT,
    /** {@code abort} and {@code recoverAndAbort}. */
    ABORT,
    /** {@code finishRecoveringContext}. */
    FINISH_RECOVERING
  }

  private static final Codec<InMemoryTransaction> CODEC = Codecs.json(InMemoryTransaction.class);

  private final InMemoryResource<T> resource;
  private final Duration transactionTimeout;
  private final Clock clock;
  private final boolean fencing;
  private final Map<Operation, Queue<Exception>> failures = new EnumMap<>(Operation.class);
  private final Queue<Exception> failuresAfterCommit = new ConcurrentLinkedQueue<>();
  private final Queue<Boolean> losses = new ConcurrentLinkedQueue<>();
  /** Owner key (see InMemoryResource.ownerKey) to the epoch this instance announced. */
  private final Map<String, Long> epochs = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** A participant on {@code resource} without a transaction timeout, with fencing. */
  public InMemoryParticipant(InMemoryResource<T> resource) {
    this(builder(resource));
  }

  private InMemoryParticipant(Builder<T> builder) {
    this.resource = builder.resource;
    this.transactionTimeout = builder.transactionTimeout;
    this.clock = builder.clock;
    this.fencing = builder.fencing;
    for (Operation operation : Operation.values()) {
      failures.put(operation, new ConcurrentLinkedQueue<>());
    }
  }

  /** A builder for a participant on {@code resource}. */
  public static <T> Builder<T> builder(InMemoryResource<T> resource) {
    return new Builder<>(resource);
  }

  /** Options of an {@link InMemoryParticipant}. */
  public static final class Builder<T> {
    private final InMemoryResource<T> resource;
    private Duration transactionTimeout;
    private Clock clock = Clock.systemUTC();
    private boolean fencing = true;

    private Builder(InMemoryResource<T> resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /**
     * The resource's transaction timeout: reported by {@link Participant#transactionTimeout()},
     * and enforced (in-progress transactions older than it expire). Default: none.
     */
    public Builder<T> transactionTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("transaction timeout must be positive, was " + timeout);
      }
      this.transactionTimeout = timeout;
      return this;
    }

    /** The clock for transaction ages ({@link InMemoryTransaction#begunAtMillis()}, timeouts). */
    public Builder<T> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Whether zombies (lower owner epochs) are fenced. Default: true. */
    public Builder<T> fencing(boolean fencing) {
      this.fencing = fencing;
      return this;
    }

    public InMemoryParticipant<T> build() {
      return new InMemoryParticipant<>(this);
    }
  }

  /** The resource this participant works on. */
  public InMemoryResource<T> resource() {
    return resource;
  }

  // ------------------------------------------------------------------------------ fault injection

  /** The next {@code times} calls of {@code operation} throw {@code failure} before doing anything. */
  public InMemoryParticipant<T> failNext(Operation operation, int times, Exception failure) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(failure, "failure");
    if (times < 1) {
      throw new IllegalArgumentException("times must be >= 1, was " + times);
    }
    for (int i = 0; i < times; i++) {
      failures.get(operation).add(failure);
    }
    return this;
  }

  /** The next {@code beginTransaction} throws {@code failure}. */
  public InMemoryParticipant<T> failNextBegin(Exception failure) {
    return failNext(Operation.BEGIN, 1, failure);
  }

  /** The next {@code write} throws {@code failure}; the record is not written. */
  public InMemoryParticipant<T> failNextWrite(Exception failure) {
    return failNext(Operation.WRITE, 1, failure);
  }

  /** The next {@code preCommit} throws {@code failure}; the transaction stays OPEN. */
  public InMemoryParticipant<T> failNextPreCommit(Exception failure) {
    return failNext(Operation.PRE_COMMIT, 1, failure);
  }

  /** The next {@code n} {@code commit}/{@code recoverAndCommit} calls throw before committing. */
  public InMemoryParticipant<T> failNextCommits(int n, Exception failure) {
    return failNext(Operation.COMMIT, n, failure);
  }

  /** The next {@code abort}/{@code recoverAndAbort} throws before aborting. */
  public InMemoryParticipant<T> failNextAbort(Exception failure) {
    return failNext(Operation.ABORT, 1, failure);
  }

  /** The next {@code finishRecoveringContext} throws before aborting anything. */
  public InMemoryParticipant<T> failNextFinishRecoveringContext(Exception failure) {
    return failNext(Operation.FINISH_RECOVERING, 1, failure);
  }

  /**
   * The next {@code commit}/{@code recoverAndCommit} does its work (the transaction may become
   * COMMITTED) and then throws {@code failure}, as if the acknowledgement were lost. A retry then
   * sees ALREADY_COMMITTED.
   */
  public InMemoryParticipant<T> failNextCommitAfterApplying(Exception failure) {
    failuresAfterCommit.add(Objects.requireNonNull(failure, "failure"));
    return this;
  }

  /**
   * The resource expires the transaction of the next {@code commit}/{@code recoverAndCommit} just
   * before it, which then reports {@link CommitOutcome#LOST}.
   */
  public InMemoryParticipant<T> loseOnNextCommit() {
    losses.add(Boolean.TRUE);
    return this;
  }

  // ---------------------------------------------------------------------------------- participant

  @Override
  public Codec<InMemoryTransaction> transactionCodec() {
    return CODEC;
  }

  @Override
  public Optional<Void> initializeUserContext(ParticipantContext context) {
    ensureOpen("initializeUserContext");
    announce(context, "initializeUserContext " + context.coordinatorId());
    return Optional.empty();
  }

  @Override
  public InMemoryTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    ensureOpen("beginTransaction");
    String name = Objects.requireNonNull(context.transactionName(), "transactionName");
    injected(Operation.BEGIN, "begin " + name);
    announce(context, "begin " + name);
    long now = clock.millis();
    resource.begin(name, context.coordinatorId(), context.participantName(), context.ownerEpoch(), now);
    return new InMemoryTransaction(name, now);
  }

  @Override
  public RecordWriter<T> writerFor(InMemoryTransaction transaction) {
    return record -> write(transaction, record);
  }

  private void write(InMemoryTransaction transaction, T record) throws Exception {
    ensureOpen("write");
    String name = name(transaction);
    if (record == null) {
      throw new NullPointerException(
          "InMemoryParticipant: record must not be null (transaction '" + name + "' unchanged)");
    }
    injected(Operation.WRITE, "write " + name + " " + record);
    checkFence(name, "write " + name + " " + record);
    enforceTimeout(name);
    resource.write(name, record);
  }

  @Override
  public InMemoryTransaction preCommit(InMemoryTransaction transaction) throws Exception {
    ensureOpen("preCommit");
    String name = name(transaction);
    injected(Operation.PRE_COMMIT, "preCommit " + name);
    checkFence(name, "preCommit " + name);
    enforceTimeout(name);
    resource.preCommit(name);
    return transaction;
  }

  @Override
  public CommitOutcome commit(InMemoryTransaction transaction) throws Exception {
    return doCommit(transaction, "commit");
  }

  @Override
  public CommitOutcome recoverAndCommit(InMemoryTransaction transaction) throws Exception {
    return doCommit(transaction, "recoverAndCommit");
  }

  private CommitOutcome doCommit(InMemoryTransaction transaction, String op) throws Exception {
    ensureOpen(op);
    String name = name(transaction);
    injected(Operation.COMMIT, op + " " + name);
    checkFence(name, op + " " + name);
    if (losses.poll() != null) {
      resource.expire(name);
    }
    enforceTimeout(name);
    CommitOutcome outcome = resource.commit(name, op);
    Exception after = failuresAfterCommit.poll();
    if (after != null) {
      resource.appendHistory(op + " " + name + " (injected failure after applying: "
          + after.getMessage() + ")");
      throw after;
    }
    return outcome;
  }

  @Override
  public void abort(InMemoryTransaction transaction) throws Exception {
    doAbort(transaction, "abort", true);
  }

  @Override
  public AbortOutcome recoverAndAbort(InMemoryTransaction transaction) throws Exception {
    return doAbort(transaction, "recoverAndAbort", false);
  }

  private AbortOutcome doAbort(InMemoryTransaction transaction, String op, boolean strict) throws Exception {
    ensureOpen(op);
    String name = name(transaction);
    injected(Operation.ABORT, op + " " + name);
    checkFence(name, op + " " + name);
    return resource.abort(name, op, strict);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> context)
      throws Exception {
    ensureOpen("finishRecoveringContext");
    String what = "finishRecoveringContext " + context.coordinatorId() + " " + context.participantName();
    injected(Operation.FINISH_RECOVERING, what);
    announce(context, what);
    List<String> handled = new ArrayList<>();
    for (InMemoryTransaction transaction : context.handledTransactions()) {
      handled.add(name(transaction));
    }
    resource.abortLingering(context.coordinatorId(), context.participantName(), context::isOwnTransactionName, handled);
  }

  @Override
  public Optional<Duration> transactionTimeout() {
    return Optional.ofNullable(transactionTimeout);
  }

  /** Marks this instance closed; the resource and its transactions are untouched. Idempotent. */
  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "InMemoryParticipant{" + resource + (closed ? ", closed" : "") + "}";
  }

  // ------------------------------------------------------------------------------------- helpers

  private static String name(InMemoryTransaction transaction) {
    return Objects.requireNonNull(transaction, "transaction").name();
  }

  private void ensureOpen(String op) {
    if (closed) {
      throw new IllegalStateException("InMemoryParticipant: " + op + " after close()");
    }
  }

  private void injected(Operation operation, String what) throws Exception {
    Exception failure = failures.get(operation).poll();
    if (failure != null) {
      resource.appendHistory(what + " (injected failure: " + failure.getMessage() + ")");
      throw failure;
    }
  }

  private void announce(ParticipantContext context, String what) {
    if (fencing) {
      resource.announceEpoch(
          context.coordinatorId(), context.participantName(), context.ownerEpoch(), what);
      epochs.merge(
          InMemoryResource.ownerKey(context.coordinatorId(), context.participantName()),
          context.ownerEpoch(),
          Math::max);
    }
  }

  private void checkFence(String name, String what) {
    if (fencing) {
      resource.checkNotFenced(name, epochs, what);
    }
  }

  private void enforceTimeout(String name) {
    if (transactionTimeout != null) {
      resource.expireIfOlderThan(name, transactionTimeout.toMillis(), clock.millis());
    }
  }
}
