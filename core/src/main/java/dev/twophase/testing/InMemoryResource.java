package dev.twophase.testing;

import dev.twophase.annotation.PublicEvolving;
import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcome;
import dev.twophase.FencedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A simulated external transactional resource (the "broker" or "database") that {@link
 * InMemoryParticipant}s work on. It outlives participant instances: a new participant on the same
 * resource is a new process after a crash, and sees every transaction the old one left behind.
 *
 * <p>Each transaction, known by its name, is in one {@link TransactionState}. Records written to it
 * are buffered and appended to {@link #committedRecords()} when it commits, all at once and in
 * write order. The resource is thread-safe; every accessor returns a snapshot.
 *
 * <h2>History</h2>
 * Every operation appends one line to {@link #history()}. A successful state change reads {@code
 * "<operation> <name>"}; anything else carries a note in parentheses:
 * <ul>
 *   <li>{@code begin tx}, {@code write tx <record>}, {@code preCommit tx}, {@code commit tx},
 *       {@code recoverAndCommit tx}, {@code abort tx}, {@code recoverAndAbort tx}, {@code expire
 *       tx}
 *   <li>{@code commit tx (already committed)}, {@code commit tx (lost: ABORTED)} or {@code (lost: ABORTED, expired)}, {@code commit tx
 *       (lost: unknown)}, {@code commit tx (rejected: OPEN, not pre-committed)} (likewise for
 *       {@code recoverAndCommit})
 *   <li>{@code abort tx (no-op: unknown)}, {@code recoverAndAbort tx (no-op: COMMITTED)}, {@code
 *       preCommit tx (no-op: already PREPARED)}
 *   <li>{@code finishRecoveringContext <coordinatorId> <participantName> aborted [tx1, tx2]}
 *   <li>{@code <operation> tx (injected failure: <message>)}, {@code <operation> tx (fenced:
 *       epoch 1 < 2)}
 * </ul>
 *
 * <h2>Fencing</h2>
 * The resource remembers, per coordinator id and participant name, the highest owner epoch a
 * participant instance announced (by beginning a transaction or finishing recovery). An instance
 * that announced a lower epoch is a zombie: its calls on that owner's transactions fail with a
 * {@link FencedException}, like Kafka's {@code ProducerFencedException}.
 *
 * @param <T> record type
 */
@PublicEvolving
public final class InMemoryResource<T> {

  /** The state of one transaction in the resource. */
  public enum TransactionState {
    /** Begun; records may be written. */
    OPEN,
    /** Pre-committed: durable and invisible, waiting for commit or abort. */
    PREPARED,
    /** Committed: its records are in {@link #committedRecords()}. */
    COMMITTED,
    /** Aborted by a participant, or expired by the resource. Its records are gone. */
    ABORTED;

    /** OPEN or PREPARED. */
    public boolean inProgress() {
      return this == OPEN || this == PREPARED;
    }
  }

  private static final class Txn<T> {
    final String name;
    final String coordinatorId;
    final String participantName;
    final long begunAtMillis;
    final List<T> records = new ArrayList<>();
    TransactionState state = TransactionState.OPEN;
    boolean expired;

    Txn(String name, String coordinatorId, String participantName, long begunAtMillis) {
      this.name = name;
      this.coordinatorId = coordinatorId;
      this.participantName = participantName;
      this.begunAtMillis = begunAtMillis;
    }
  }

  private record Owner(String coordinatorId, String participantName) {}

  private final Map<String, Txn<T>> transactions = new LinkedHashMap<>();
  private final List<T> committed = new ArrayList<>();
  private final List<String> history = new ArrayList<>();
  private final Map<Owner, Long> epochs = new LinkedHashMap<>();

  /** An empty resource. */
  public InMemoryResource() {}

  /** Every committed record, in commit order (what a read_committed reader sees). */
  public synchronized List<T> committedRecords() {
    return List.copyOf(committed);
  }

  /** Every operation so far, oldest first; see the class comment for the format. */
  public synchronized List<String> history() {
    return List.copyOf(history);
  }

  /** Names of the transactions that are OPEN or PREPARED, in the order they were begun. */
  public synchronized Set<String> openTransactions() {
    Set<String> open = new LinkedHashSet<>();
    for (Txn<T> txn : transactions.values()) {
      if (txn.state.inProgress()) {
        open.add(txn.name);
      }
    }
    return open;
  }

  /** Names of all transactions the resource has seen, in the order they were begun. */
  public synchronized Set<String> transactionNames() {
    return new LinkedHashSet<>(transactions.keySet());
  }

  /** The state of a transaction; empty if the resource never saw it. */
  public synchronized Optional<TransactionState> state(String name) {
    Txn<T> txn = transactions.get(name);
    return txn == null ? Optional.empty() : Optional.of(txn.state);
  }

  /** The records written to a transaction (buffered, committed or discarded); empty if unknown. */
  public synchronized List<T> records(String name) {
    Txn<T> txn = transactions.get(name);
    return txn == null ? List.of() : List.copyOf(txn.records);
  }

  /** Whether the transaction was expired by {@link #expire}. */
  public synchronized boolean isExpired(String name) {
    Txn<T> txn = transactions.get(name);
    return txn != null && txn.expired;
  }

  /**
   * Simulates the resource timing a transaction out (Kafka's {@code transaction.timeout.ms}): an
   * OPEN or PREPARED transaction becomes ABORTED and its records are lost; committing it later
   * reports {@link dev.twophase.CommitOutcome#LOST}.
   *
   * @return true if the transaction was in progress and is now expired; false if it was unknown or
   *     already finished (nothing changes)
   */
  public synchronized boolean expire(String name) {
    Txn<T> txn = transactions.get(name);
    if (txn == null || !txn.state.inProgress()) {
      log("expire " + name + " (no-op: " + describe(txn) + ")");
      return false;
    }
    txn.state = TransactionState.ABORTED;
    txn.expired = true;
    log("expire " + name);
    return true;
  }

  /** The highest owner epoch announced for a coordinator's participant; empty if none yet. */
  public synchronized OptionalLong ownerEpoch(String coordinatorId, String participantName) {
    Long epoch = epochs.get(new Owner(coordinatorId, participantName));
    return epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch);
  }

  // ---------------------------------------------------------------- operations used by participants

  synchronized void appendHistory(String line) {
    log(line);
  }

  /** Raises the owner's epoch to {@code epoch}, or fences the caller if a newer one is known. */
  synchronized void announceEpoch(String coordinatorId, String participantName, long epoch, String what) {
    Owner owner = new Owner(coordinatorId, participantName);
    Long current = epochs.get(owner);
    if (current != null && current > epoch) {
      log(what + " (fenced: epoch " + epoch + " < " + current + ")");
      throw fenced(owner, epoch, current);
    }
    epochs.put(owner, epoch);
  }

  /**
   * Fails with {@link FencedException} if the caller, which knows its epochs per owner, is a zombie
   * for the owner of transaction {@code name}.
   */
  synchronized void checkNotFenced(String name, Map<String, Long> callerEpochs, String what) {
    Txn<T> txn = transactions.get(name);
    if (txn == null) {
      return;
    }
    Owner owner = new Owner(txn.coordinatorId, txn.participantName);
    Long mine = callerEpochs.get(ownerKey(txn.coordinatorId, txn.participantName));
    Long current = epochs.get(owner);
    if (mine != null && current != null && mine < current) {
      log(what + " (fenced: epoch " + mine + " < " + current + ")");
      throw fenced(owner, mine, current);
    }
  }

  static String ownerKey(String coordinatorId, String participantName) {
    return coordinatorId + '\u0000' + participantName;
  }

  private static FencedException fenced(Owner owner, long epoch, long current) {
    return new FencedException(
        "in-memory resource: participant '"
            + owner.participantName()
            + "' of coordinator '"
            + owner.coordinatorId()
            + "' with epoch "
            + epoch
            + " was fenced by epoch "
            + current);
  }

  synchronized void begin(
      String name, String coordinatorId, String participantName, long epoch, long begunAtMillis) {
    if (transactions.containsKey(name)) {
      log("begin " + name + " (rejected: name in use, " + transactions.get(name).state + ")");
      throw new IllegalStateException(
          "in-memory resource: a transaction named '"
              + name
              + "' exists already ("
              + transactions.get(name).state
              + "); transaction names must be unique");
    }
    transactions.put(name, new Txn<>(name, coordinatorId, participantName, begunAtMillis));
    log("begin " + name);
  }

  synchronized void write(String name, T record) {
    Txn<T> txn = transactions.get(name);
    if (txn == null || txn.state != TransactionState.OPEN) {
      log("write " + name + " " + record + " (rejected: " + describe(txn) + ")");
      throw new IllegalStateException(
          "in-memory resource: cannot write to transaction '" + name + "', it is " + describe(txn));
    }
    txn.records.add(record);
    log("write " + name + " " + record);
  }

  synchronized void preCommit(String name) {
    Txn<T> txn = transactions.get(name);
    if (txn != null && txn.state == TransactionState.PREPARED) {
      log("preCommit " + name + " (no-op: already PREPARED)");
      return;
    }
    if (txn == null || txn.state != TransactionState.OPEN) {
      log("preCommit " + name + " (rejected: " + describe(txn) + ")");
      throw new IllegalStateException(
          "in-memory resource: cannot pre-commit transaction '" + name + "', it is " + describe(txn));
    }
    txn.state = TransactionState.PREPARED;
    log("preCommit " + name);
  }

  /** Commit semantics shared by commit and recoverAndCommit; {@code op} names the call. */
  synchronized CommitOutcome commit(String name, String op) {
    Txn<T> txn = transactions.get(name);
    if (txn == null) {
      log(op + " " + name + " (lost: unknown)");
      return CommitOutcome.LOST;
    }
    switch (txn.state) {
      case PREPARED:
        txn.state = TransactionState.COMMITTED;
        committed.addAll(txn.records);
        log(op + " " + name);
        return CommitOutcome.COMMITTED;
      case COMMITTED:
        log(op + " " + name + " (already committed)");
        return CommitOutcome.ALREADY_COMMITTED;
      case ABORTED:
        log(op + " " + name + " (lost: " + describe(txn) + ")");
        return CommitOutcome.LOST;
      case OPEN:
      default:
        log(op + " " + name + " (rejected: OPEN, not pre-committed)");
        throw new IllegalStateException(
            "in-memory resource: "
                + op
                + " of transaction '"
                + name
                + "', which was never pre-committed (protocol violation)");
    }
  }

  /**
   * Abort semantics. {@code strict}: aborting a COMMITTED transaction is a protocol violation
   * (plain abort); otherwise it is a no-op with a note (recoverAndAbort).
   */
  synchronized AbortOutcome abort(String name, String op, boolean strict) {
    Txn<T> txn = transactions.get(name);
    if (txn == null || txn.state == TransactionState.ABORTED) {
      log(op + " " + name + " (no-op: " + describe(txn) + ")");
      return AbortOutcome.NOT_FOUND;
    }
    if (txn.state == TransactionState.COMMITTED) {
      if (strict) {
        log(op + " " + name + " (rejected: COMMITTED)");
        throw new IllegalStateException(
            "in-memory resource: abort of transaction '"
                + name
                + "', which is committed (protocol violation)");
      }
      log(op + " " + name + " (no-op: COMMITTED)");
      return AbortOutcome.COMMITTED;
    }
    txn.state = TransactionState.ABORTED;
    log(op + " " + name);
    return AbortOutcome.ABORTED;
  }

  /**
   * Expires {@code name} if it is in progress and older than {@code timeoutMillis} at {@code
   * nowMillis}; returns whether it did.
   */
  synchronized boolean expireIfOlderThan(String name, long timeoutMillis, long nowMillis) {
    Txn<T> txn = transactions.get(name);
    if (txn == null || !txn.state.inProgress() || nowMillis - txn.begunAtMillis <= timeoutMillis) {
      return false;
    }
    txn.state = TransactionState.ABORTED;
    txn.expired = true;
    log("expire " + name + " (timeout: age " + (nowMillis - txn.begunAtMillis) + " ms > "
        + timeoutMillis + " ms)");
    return true;
  }

  /**
   * Aborts every in-progress transaction whose name {@code own} accepts and that is not in
   * {@code handled}.
   */
  synchronized List<String> abortLingering(
      String coordinatorId, String participantName, Predicate<String> own, Collection<String> handled) {
    List<String> aborted = new ArrayList<>();
    for (Txn<T> txn : transactions.values()) {
      if (txn.state.inProgress() && own.test(txn.name) && !handled.contains(txn.name)) {
        txn.state = TransactionState.ABORTED;
        aborted.add(txn.name);
      }
    }
    log("finishRecoveringContext " + coordinatorId + " " + participantName + " aborted " + aborted);
    return aborted;
  }

  private static String describe(Txn<?> txn) {
    if (txn == null) {
      return "unknown";
    }
    return txn.expired ? txn.state + ", expired" : txn.state.toString();
  }

  private void log(String line) {
    history.add(Objects.requireNonNull(line));
  }

  @Override
  public synchronized String toString() {
    return "InMemoryResource{transactions=" + transactions.size() + ", committed="
        + committed.size() + " records}";
  }
}
