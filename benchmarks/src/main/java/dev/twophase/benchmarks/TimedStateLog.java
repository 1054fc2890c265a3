package dev.twophase.benchmarks;

import dev.twophase.StateLog;
import dev.twophase.StoredState;

/**
 * A pass-through {@link StateLog} that times {@code appendState} (the decision's write and
 * {@code fdatasync}) for the phase report: two {@code nanoTime} calls per checkpoint.
 */
final class TimedStateLog implements StateLog {
  private final StateLog delegate;
  volatile long appendNanos; // written by the application thread only
  volatile int lastPayloadBytes;

  TimedStateLog(StateLog delegate) {
    this.delegate = delegate;
  }

  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer, the application thread; the report only reads
  private void addAppendNanos(long nanos) {
    appendNanos += nanos;
  }

  @Override
  public CoordinatorLog open(String coordinatorId) {
    CoordinatorLog view = delegate.open(coordinatorId);
    return new CoordinatorLog() {
      @Override
      public String coordinatorId() {
        return view.coordinatorId();
      }

      @Override
      public long ownerEpoch() {
        return view.ownerEpoch();
      }

      @Override
      public String logId() {
        return view.logId();
      }

      @Override
      public StoredState lastState() {
        return view.lastState();
      }

      @Override
      public long lastCompletedCheckpointId() {
        return view.lastCompletedCheckpointId();
      }

      @Override
      public void appendState(long checkpointId, byte[] payload) {
        long t0 = System.nanoTime();
        view.appendState(checkpointId, payload);
        addAppendNanos(System.nanoTime() - t0);
        lastPayloadBytes = payload.length;
      }

      @Override
      public void appendCompletion(long checkpointId) {
        view.appendCompletion(checkpointId);
      }

      @Override
      public void close() {
        view.close();
      }
    };
  }

  @Override
  public String logId() {
    return delegate.logId();
  }

  @Override
  public boolean isShared() {
    return delegate.isShared();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
