package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.CoordinatorConfig.WhenPendingFull;
import dev.twophase.PendingLimitExceededException;
import dev.twophase.Ticker;
import dev.twophase.TwoPhaseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The decided checkpoints whose commits are not done, in id order, with the optional bound on
 * their number, and the committed ones whose handles a later durable state record has not yet
 * dropped (they are retired once it has; see {@code RetirementListener}).
 *
 * <p>Threads: the application thread adds and reads (to encode state records); the committer
 * thread commits and removes. A failure of the coordinator completes every pending future,
 * including one added concurrently with the failure.
 */
@Internal
public final class PendingCheckpoints {

  private final ConcurrentSkipListMap<Long, PendingCheckpoint> pending = new ConcurrentSkipListMap<>();
  /** Committed, removed from {@link #pending}, handles not yet retired. */
  private final Queue<PendingCheckpoint> committedUnretired = new ConcurrentLinkedQueue<>();
  private final int max;
  private final WhenPendingFull whenFull;
  private final Ticker ticker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition room = lock.newCondition();
  private volatile TwoPhaseException failure;
  private volatile boolean closing;

  PendingCheckpoints(int max, WhenPendingFull whenFull, Ticker ticker) {
    this.max = max;
    this.whenFull = whenFull;
    this.ticker = ticker;
  }

  public int size() {
    return pending.size();
  }

  public boolean isEmpty() {
    return pending.isEmpty();
  }

  /** The pending checkpoints in id order, as of now. */
  public List<PendingCheckpoint> snapshot() {
    return new ArrayList<>(pending.values());
  }

  /** The pending checkpoints with an id up to {@code id}, in id order, as of now. */
  public List<PendingCheckpoint> upTo(long id) {
    return new ArrayList<>(pending.headMap(id, true).values());
  }

  Iterable<PendingCheckpoint> values() {
    return pending.values();
  }

  /** Adds a decided checkpoint; if the coordinator failed meanwhile, its waiters learn it at once. */
  void add(PendingCheckpoint checkpoint) {
    pending.put(checkpoint.id, checkpoint);
    TwoPhaseException f = failure;
    if (f != null) {
      checkpoint.committed.completeExceptionally(f);
    }
  }

  /** Removes a fully committed checkpoint; its handles wait for {@link #takeRetirable()}. */
  void completed(PendingCheckpoint checkpoint, boolean retire) {
    pending.remove(checkpoint.id);
    if (retire) {
      committedUnretired.add(checkpoint);
    }
    signalRoom();
  }

  /**
   * The committed checkpoints that the next state record will not hold: call it before that
   * record's pending set is read, and retire them once the record is durable.
   */
  List<PendingCheckpoint> takeRetirable() {
    List<PendingCheckpoint> out = new ArrayList<>();
    for (PendingCheckpoint p; (p = committedUnretired.poll()) != null; ) {
      out.add(p);
    }
    return out;
  }

  /**
   * Completes every pending future exceptionally with {@code cause}: their commits will not happen
   * in this process. Also wakes a checkpoint waiting for room.
   */
  void failAll(TwoPhaseException cause) {
    if (failure == null) {
      failure = cause;
    }
    for (PendingCheckpoint p : pending.values()) {
      p.committed.completeExceptionally(cause);
    }
    signalRoom();
  }

  /** Close began: a checkpoint waiting for room gives up. */
  public void closing() {
    closing = true;
    signalRoom();
  }

  /**
   * Returns once fewer than the maximum checkpoints are pending, having waited (BLOCK) or not
   * (FAIL); returns the nanoseconds waited.
   *
   * @throws PendingLimitExceededException if full and the policy is FAIL
   * @throws TwoPhaseException if the coordinator failed or closes while waiting, or the wait was
   *     interrupted (the interrupt flag is restored)
   */
  public long awaitRoom(String coordinatorId, long checkpointId) {
    if (max <= 0 || pending.size() < max) {
      return 0;
    }
    if (whenFull == WhenPendingFull.FAIL) {
      throw new PendingLimitExceededException(
          "checkpoint " + checkpointId + " of coordinator '" + coordinatorId + "' not taken: "
              + pending.size() + " decided checkpoints still wait for their commits, the limit is "
              + max + " (maxPendingCheckpoints); the current transactions stay open. Take the "
              + "checkpoint again later, raise the limit, or choose WhenPendingFull.BLOCK",
          checkpointId);
    }
    long start = ticker.read();
    lock.lock();
    try {
      while (pending.size() >= max) {
        TwoPhaseException f = failure;
        if (f != null) {
          throw f;
        }
        if (closing) {
          throw new TwoPhaseException("coordinator '" + coordinatorId + "' closed while checkpoint "
              + checkpointId + " waited for pending commits", null, checkpointId, null);
        }
        try {
          room.await(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new TwoPhaseException("interrupted while checkpoint " + checkpointId + " of "
              + "coordinator '" + coordinatorId + "' waited for pending commits; nothing was "
              + "pre-committed", e, checkpointId, null);
        }
      }
    } finally {
      lock.unlock();
    }
    return ticker.read() - start;
  }

  private void signalRoom() {
    if (max > 0) {
      lock.lock();
      try {
        room.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
