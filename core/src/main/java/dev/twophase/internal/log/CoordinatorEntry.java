package dev.twophase.internal.log;

import dev.twophase.annotation.Internal;
import dev.twophase.StoredState;
import java.nio.charset.StandardCharsets;

/**
 * What the log holds for one coordinator: its last STATE record and its highest completion mark.
 * Written only under the log's append lock; read without a lock (the fields are volatile and
 * {@link State} is immutable).
 */
@Internal
public final class CoordinatorEntry {

  /** A STATE record. The payload is owned by this object and never exposed. */
  static final class State {
    final long checkpointId;
    final long epoch;
    final byte[] payload;

    State(long checkpointId, long epoch, byte[] payload) {
      this.checkpointId = checkpointId;
      this.epoch = epoch;
      this.payload = payload;
    }
  }

  private final String id;
  private final byte[] idBytes;
  private volatile State state;
  private volatile long maxCompleted;
  private volatile long completedEpoch;

  CoordinatorEntry(String id) {
    this.id = id;
    this.idBytes = id.getBytes(StandardCharsets.UTF_8);
  }

  public String coordinatorId() {
    return id;
  }

  byte[] idBytes() {
    return idBytes;
  }

  /** The last state, as a fresh {@link StoredState}, or null if none. */
  public StoredState lastState() {
    State s = state;
    return s == null ? null : new StoredState(s.checkpointId, s.payload);
  }

  /** The checkpoint id of the last state, or -1 if none. */
  public long lastStateCheckpointId() {
    State s = state;
    return s == null ? -1 : s.checkpointId;
  }

  State state() {
    return state;
  }

  public long lastCompletedCheckpointId() {
    return maxCompleted;
  }

  long completedEpoch() {
    return completedEpoch;
  }

  /** Whether the log holds anything for this coordinator. */
  boolean isEmpty() {
    return state == null && maxCompleted == 0;
  }

  void setState(long checkpointId, long epoch, byte[] ownedPayload) {
    state = new State(checkpointId, epoch, ownedPayload);
  }

  /** Records a completion mark; returns false if it does not raise the highest one. */
  boolean complete(long checkpointId, long epoch) {
    if (checkpointId <= maxCompleted) {
      return false;
    }
    completedEpoch = epoch;
    maxCompleted = checkpointId;
    return true;
  }
}
