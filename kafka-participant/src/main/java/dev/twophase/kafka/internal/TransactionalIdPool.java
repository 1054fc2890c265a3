package dev.twophase.kafka.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.TransactionalIdPoolExhaustedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed set of Kafka transactional ids of one incarnation, {@code <base>e<epoch>-0 ..
 * <base>e<epoch>-(size-1)} ({@link TransactionalIdScheme}), each held by at most one transaction at
 * a time. The base is deterministic (a user prefix and the coordinator's and participant's
 * identity) and the epoch is the incarnation's owner epoch: an incarnation reuses its own ids from
 * transaction to transaction, so it keeps at most {@code size} of them in use however many
 * transactions it runs, and never registers an id of another incarnation, so that an earlier
 * owner still running (a zombie) cannot fence or abort a newer owner's transactions. Start-up finds
 * what earlier incarnations left open by the base, which every epoch's ids share.
 *
 * <p>{@link #acquire} takes the lowest free id, so that a participant that never has more than
 * {@code k} transactions in flight uses only the first {@code k} ids. When none is free it waits up
 * to the wait timeout for a {@link #release}, then fails with
 * {@link TransactionalIdPoolExhaustedException} naming the setting to raise. A wait of zero fails
 * at once, for callers whose releases come from the same thread (which would deadlock waiting).
 *
 * <p>Thread-safe: transactions are begun on the application thread and released on the committer
 * thread.
 */
@Internal
public final class TransactionalIdPool {

  /** Characters Kafka accepts in a transactional id and the names it derives from it. */
  private static final String SAFE = "[A-Za-z0-9._-]+";

  private final String base;
  private final long epoch;
  /** {@code <base>e<epoch>-}: the ids' common start. */
  private final String idStart;
  private final int size;
  private final Duration wait;
  private final String sizeSetting;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  /** Index -> what holds it (for messages); absent: free. Guarded by {@code lock}. */
  @GuardedBy("lock")
  private final Map<Integer, String> held = new LinkedHashMap<>();
  @GuardedBy("lock")
  private boolean closed;

  /**
   * @param userPrefix the user's prefix of the ids ({@code [A-Za-z0-9._-]+})
   * @param owner what makes the ids unique to one participant of one coordinator: the participant
   *     context's transaction name prefix
   * @param epoch the incarnation's owner epoch, which every id carries
   * @param size how many ids; at least the number of transactions that can be in flight at once
   * @param wait how long {@link #acquire} waits for a free id; zero fails at once
   * @param sizeSetting the name of the setting that sets {@code size}, for the messages
   */
  public TransactionalIdPool(String userPrefix, String owner, long epoch, int size, Duration wait,
      String sizeSetting) {
    Objects.requireNonNull(userPrefix, "userPrefix");
    Objects.requireNonNull(owner, "owner");
    if (!userPrefix.matches(SAFE)) {
      throw new IllegalArgumentException("transactional id prefix '" + userPrefix
          + "' must be non-empty and consist of letters, digits, '.', '_' and '-'");
    }
    if (size < 1) {
      throw new IllegalArgumentException(sizeSetting + " must be at least 1, not " + size);
    }
    if (wait.isNegative()) {
      throw new IllegalArgumentException("the wait for a transactional id must not be negative: " + wait);
    }
    this.base = TransactionalIdScheme.base(userPrefix, owner);
    this.epoch = epoch;
    this.idStart = TransactionalIdScheme.epochBase(base, epoch);
    this.size = size;
    this.wait = wait;
    this.sizeSetting = Objects.requireNonNull(sizeSetting, "sizeSetting");
  }

  /** {@code <userPrefix>-<owner>tid-}: what the ids of every epoch start with. */
  public String base() {
    return base;
  }

  /** The owner epoch the ids carry. */
  public long epoch() {
    return epoch;
  }

  /** The i-th id of the pool. */
  public String id(int index) {
    Objects.checkIndex(index, size);
    return idStart + index;
  }

  /** Every id of the pool, in index order. */
  public List<String> ids() {
    List<String> ids = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      ids.add(id(i));
    }
    return Collections.unmodifiableList(ids);
  }

  public int size() {
    return size;
  }

  /** The index of {@code transactionalId} in this pool, or -1 if it is not one of its ids. */
  public int indexOf(String transactionalId) {
    TransactionalIdScheme.Parsed p = TransactionalIdScheme.parse(base, transactionalId);
    return p != null && p.epoch() == epoch && p.index() < size ? p.index() : -1;
  }

  /**
   * Takes the lowest free id for {@code holder} (a description for messages, e.g. the transaction
   * name), waiting up to the pool's wait for one to come free.
   *
   * @throws TransactionalIdPoolExhaustedException if none came free in time
   * @throws InterruptedException if interrupted while waiting; nothing is taken then
   * @throws FatalTwoPhaseException after {@link #close()}
   */
  public String acquire(String holder) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      long remaining = wait.toNanos();
      while (true) {
        if (closed) {
          throw new FatalTwoPhaseException("the transactional id pool " + idStart + "* is closed: its participant was "
              + "closed; build a new participant for the next coordinator");
        }
        for (int i = 0; i < size; i++) {
          if (!held.containsKey(i)) {
            held.put(i, holder);
            return id(i);
          }
        }
        if (remaining <= 0) {
          throw exhausted(holder);
        }
        remaining = released.awaitNanos(remaining);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Marks {@code transactionalId} held by {@code holder} without waiting, e.g. for a recovered
   * transaction that still needs its id.
   *
   * @throws IllegalArgumentException if it is not an id of this pool
   * @throws IllegalStateException if it is already held
   */
  public void hold(String transactionalId, String holder) {
    int index = checkedIndex(transactionalId);
    lock.lock();
    try {
      String previous = held.putIfAbsent(index, holder);
      if (previous != null) {
        throw new IllegalStateException("transactional id " + transactionalId + " is held by " + previous
            + ", cannot give it to " + holder);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Gives {@code transactionalId} back. Idempotent: releasing a free id does nothing.
   *
   * @throws IllegalArgumentException if it is not an id of this pool
   */
  public void release(String transactionalId) {
    int index = checkedIndex(transactionalId);
    lock.lock();
    try {
      if (held.remove(index) != null) {
        released.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Gives {@code transactionalId} back if {@code holder} holds it; does nothing otherwise (it was
   * released before and maybe taken by another holder since).
   *
   * @return whether it was released
   */
  public boolean releaseIfHeldBy(String transactionalId, String holder) {
    int index = checkedIndex(transactionalId);
    lock.lock();
    try {
      if (holder.equals(held.get(index))) {
        held.remove(index);
        released.signalAll();
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@code transactionalId} is held now. */
  public boolean isHeld(String transactionalId) {
    int index = checkedIndex(transactionalId);
    lock.lock();
    try {
      return held.containsKey(index);
    } finally {
      lock.unlock();
    }
  }

  /** How many ids are held now. */
  public int heldCount() {
    lock.lock();
    try {
      return held.size();
    } finally {
      lock.unlock();
    }
  }

  /** Fails every waiting and later {@link #acquire}; ids stay as they are. */
  public void close() {
    lock.lock();
    try {
      closed = true;
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private int checkedIndex(String transactionalId) {
    int index = indexOf(transactionalId);
    if (index < 0) {
      throw new IllegalArgumentException(transactionalId + " is not an id of the pool " + idStart + "0.." + (size - 1));
    }
    return index;
  }

  /** Under {@code lock}: the message names the ids' holders. */
  @GuardedBy("lock")
  private TransactionalIdPoolExhaustedException exhausted(String holder) {
    StringBuilder holders = new StringBuilder();
    held.forEach((i, h) -> holders.append(holders.length() == 0 ? "" : ", ").append(id(i)).append(" by ").append(h));
    return new TransactionalIdPoolExhaustedException("no free transactional id for " + holder + ": all " + size
        + " ids of the pool " + idStart + "* are held by transactions in flight (" + holders + ")"
        + (wait.isZero() ? "" : " and none came free within " + wait)
        + ". Raise " + sizeSetting + " (each pending checkpoint holds one id until it is committed), "
        + "or bound the coordinator's pending checkpoints; nothing was written under the new transaction");
  }

  @Override
  public String toString() {
    return "TransactionalIdPool[" + idStart + "0.." + (size - 1) + ", held " + heldCount() + "]";
  }
}
