package dev.twophase;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A state log that can be made to lose its latest records, as a damaged log cut back to an older
 * record, or a log restored from an old backup, would: {@link #forgetLatest} drops the last state
 * record of a coordinator (and the completion marks above the state that becomes the last one).
 */
final class ForgetfulStateLog implements StateLog {

  private final Map<String, List<StoredState>> states = new HashMap<>();
  private final Map<String, Long> completions = new HashMap<>();
  private final Map<String, CoordinatorLog> open = new HashMap<>();
  private long epoch = 1;

  /** A new owner of the same records: what a restarted process opens. */
  synchronized ForgetfulStateLog restart() {
    open.clear();
    epoch++;
    return this;
  }

  /** Drops the newest state record of {@code coordinatorId}, and marks above the one before. */
  synchronized void forgetLatest(String coordinatorId) {
    List<StoredState> list = states.get(coordinatorId);
    list.remove(list.size() - 1);
    long last = list.isEmpty() ? 0 : list.get(list.size() - 1).checkpointId();
    completions.computeIfPresent(coordinatorId, (k, v) -> Math.min(v, last));
  }

  @Override
  public synchronized CoordinatorLog open(String coordinatorId) {
    if (open.containsKey(coordinatorId)) {
      throw new FencedException("coordinator '" + coordinatorId + "' is already open");
    }
    CoordinatorLog view = new View(coordinatorId, epoch);
    open.put(coordinatorId, view);
    return view;
  }

  @Override
  public String logId() {
    return "forget01";
  }

  @Override
  public synchronized void close() {
    open.clear();
  }

  private final class View implements CoordinatorLog {
    private final String id;
    private final long viewEpoch;

    View(String id, long viewEpoch) {
      this.id = id;
      this.viewEpoch = viewEpoch;
    }

    @Override
    public String coordinatorId() {
      return id;
    }

    @Override
    public String logId() {
      return ForgetfulStateLog.this.logId();
    }

    @Override
    public long ownerEpoch() {
      return viewEpoch;
    }

    @Override
    public StoredState lastState() {
      synchronized (ForgetfulStateLog.this) {
        List<StoredState> list = states.get(id);
        return list == null || list.isEmpty() ? null : list.get(list.size() - 1);
      }
    }

    @Override
    public long lastCompletedCheckpointId() {
      synchronized (ForgetfulStateLog.this) {
        return completions.getOrDefault(id, 0L);
      }
    }

    @Override
    public void appendState(long checkpointId, byte[] payload) {
      synchronized (ForgetfulStateLog.this) {
        states.computeIfAbsent(id, k -> new ArrayList<>()).add(new StoredState(checkpointId, payload));
      }
    }

    @Override
    public void appendCompletion(long checkpointId) {
      synchronized (ForgetfulStateLog.this) {
        completions.merge(id, checkpointId, Math::max);
      }
    }

    @Override
    public void close() {
      synchronized (ForgetfulStateLog.this) {
        open.remove(id, this);
      }
    }
  }
}
