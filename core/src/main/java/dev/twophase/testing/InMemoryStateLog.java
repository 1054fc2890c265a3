package dev.twophase.testing;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import dev.twophase.TwoPhaseException;
import dev.twophase.internal.log.LogFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link StateLog} in memory, for tests of applications and participants: what it stores
 * outlives an owner, so {@link #reopen()} plays the part of a new process opening the same log
 * after a crash, and fences the old owner. Failures can be injected into the next append.
 *
 * <p>Nothing here is durable across JVMs; use {@link dev.twophase.FileStateLog} for that.
 */
@PublicEvolving
public final class InMemoryStateLog implements StateLog {

  /**
   * What the "disk" holds, shared by every owner of this log. Guarded by itself: every owner reads
   * and writes it holding the store's monitor.
   */
  private static final class Store {
    final String logId;
    @GuardedBy("this") final Map<String, StoredState> states = new HashMap<>();
    @GuardedBy("this") final Map<String, Long> completed = new HashMap<>();
    @GuardedBy("this") final List<String> appends = new ArrayList<>();
    @GuardedBy("this") long epoch;
    @GuardedBy("this") RuntimeException nextAppendFailure;
    @GuardedBy("this") boolean nextAppendFailureAfterWrite;

    Store(String logId) {
      this.logId = logId;
    }
  }

  private final Store store;
  private final long epoch;
  /** The coordinators open on this owner's log; guarded by this log's monitor. */
  @GuardedBy("this")
  private final Set<String> open = new HashSet<>();
  /** Set by {@link #close()}; read by every append, which holds only the store's monitor. */
  private volatile boolean closed;

  /** An empty log with its first owner (epoch 1) and a random {@link #logId()}. */
  public InMemoryStateLog() {
    this(new Store(LogFormat.newLogId()));
  }

  /**
   * An empty log with its first owner (epoch 1) and the given {@link #logId()}, for tests that
   * need predictable transaction names.
   *
   * @throws IllegalArgumentException if {@code logId} is not 8 characters of {@code [a-z0-9]}
   */
  public InMemoryStateLog(String logId) {
    this(new Store(checkLogId(logId)));
  }

  private static String checkLogId(String logId) {
    if (!LogFormat.isLogId(logId)) {
      throw new IllegalArgumentException(
          "a log id is 8 characters of [a-z0-9], was " + (logId == null ? "null" : "'" + logId + "'"));
    }
    return logId;
  }

  private InMemoryStateLog(Store store) {
    this.store = store;
    synchronized (store) {
      this.epoch = ++store.epoch;
    }
  }

  /**
   * A new owner of the same stored records (and the same {@link #logId()}), as a restarted process
   * would be; this owner is fenced from now on.
   */
  public InMemoryStateLog reopen() {
    return new InMemoryStateLog(store);
  }

  /** Fails the next {@code appendState} with {@code failure}, before anything is stored. */
  public void failNextAppend(RuntimeException failure) {
    synchronized (store) {
      store.nextAppendFailure = Objects.requireNonNull(failure);
      store.nextAppendFailureAfterWrite = false;
    }
  }

  /**
   * Fails the next {@code appendState} with {@code failure} <em>after</em> storing the record, like
   * an fsync that reports an error although the data reached the disk.
   */
  public void failNextAppendAfterWrite(RuntimeException failure) {
    synchronized (store) {
      store.nextAppendFailure = Objects.requireNonNull(failure);
      store.nextAppendFailureAfterWrite = true;
    }
  }

  /** Every append so far, as lines {@code "state <id> <checkpoint>"} or {@code "completed ..."}. */
  public List<String> appends() {
    synchronized (store) {
      return List.copyOf(store.appends);
    }
  }

  /** The epoch of this owner: higher than that of every earlier owner of the log. */
  public long ownerEpoch() {
    return epoch;
  }

  /** Random unless given to the constructor; kept by {@link #reopen()}. */
  @Override
  public String logId() {
    return store.logId;
  }

  @Override
  public synchronized CoordinatorLog open(String coordinatorId) {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    checkOwner();
    if (!open.add(coordinatorId)) {
      throw new CoordinatorHeldException(coordinatorId, "this process", epoch,
          "coordinator '" + coordinatorId + "' is already open on this log: close its "
              + "CoordinatorLog first; two coordinators must never share an id");
    }
    StoredState last;
    long completed;
    synchronized (store) {
      last = store.states.get(coordinatorId);
      completed = store.completed.getOrDefault(coordinatorId, 0L);
    }
    return new View(coordinatorId, last, completed);
  }

  private void checkOwner() {
    synchronized (store) {
      if (closed) {
        throw new IllegalStateException("this in-memory state log is closed");
      }
      if (store.epoch != epoch) {
        throw new FencedException(
            "state log owner epoch " + epoch + " was superseded by epoch " + store.epoch);
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  private final class View implements CoordinatorLog {
    private final String id;
    private final StoredState last;
    private final long completed;
    private long lastAppended;
    /** Set by the view's {@code close()}; read by its appends, which do not take the log's monitor. */
    private volatile boolean viewClosed;

    View(String id, StoredState last, long completed) {
      this.id = id;
      this.last = last;
      this.completed = completed;
      this.lastAppended = last == null ? 0 : last.checkpointId();
    }

    @Override
    public String coordinatorId() {
      return id;
    }

    @Override
    public long ownerEpoch() {
      return epoch;
    }

    @Override
    public String logId() {
      return store.logId;
    }

    @Override
    public StoredState lastState() {
      return last;
    }

    @Override
    public long lastCompletedCheckpointId() {
      return completed;
    }

    @Override
    public void appendState(long checkpointId, byte[] payload) {
      // The owner check and the write under one hold of the store's monitor: a new owner's claim
      // (reopen) and read take it too, so no append of this owner lands after that read.
      synchronized (store) {
        ensureOpen();
        if (checkpointId < lastAppended) {
          throw new IllegalArgumentException(
              "checkpoint " + checkpointId + " is lower than the last appended, " + lastAppended);
        }
        RuntimeException failure = store.nextAppendFailure;
        store.nextAppendFailure = null;
        if (failure != null && !store.nextAppendFailureAfterWrite) {
          throw failure;
        }
        store.states.put(id, new StoredState(checkpointId, payload));
        store.appends.add("state " + id + " " + checkpointId);
        lastAppended = checkpointId;
        if (failure != null) {
          throw failure;
        }
      }
    }

    @Override
    public void appendCompletion(long checkpointId) {
      synchronized (store) {
        ensureOpen();
        store.completed.merge(id, checkpointId, Math::max);
        store.appends.add("completed " + id + " " + checkpointId);
      }
    }

    private void ensureOpen() {
      if (viewClosed) {
        throw new IllegalStateException("coordinator '" + id + "' was closed on this log");
      }
      try {
        checkOwner();
      } catch (IllegalStateException e) {
        throw new TwoPhaseException(e.getMessage(), e);
      }
    }

    @Override
    public void close() {
      synchronized (InMemoryStateLog.this) {
        viewClosed = true;
        open.remove(id);
      }
    }
  }
}
