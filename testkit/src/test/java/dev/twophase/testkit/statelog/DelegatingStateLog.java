package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;
import dev.twophase.StoredState;

/** A {@link StateLog} that forwards every call; mutants override what they break. */
class DelegatingStateLog implements StateLog {

  final StateLog delegate;

  DelegatingStateLog(StateLog delegate) {
    this.delegate = delegate;
  }

  /** The log under all wrappers. */
  StateLog innermost() {
    return delegate instanceof DelegatingStateLog d ? d.innermost() : delegate;
  }

  /** Wraps a view the delegate opened; default: forwards every call. */
  CoordinatorLog view(CoordinatorLog view) {
    return new View(view);
  }

  @Override
  public CoordinatorLog open(String coordinatorId) {
    return view(delegate.open(coordinatorId));
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

  /** A view that forwards every call. */
  static class View implements CoordinatorLog {
    final CoordinatorLog delegate;

    View(CoordinatorLog delegate) {
      this.delegate = delegate;
    }

    @Override
    public String coordinatorId() {
      return delegate.coordinatorId();
    }

    @Override
    public long ownerEpoch() {
      return delegate.ownerEpoch();
    }

    @Override
    public String logId() {
      return delegate.logId();
    }

    @Override
    public StoredState lastState() {
      return delegate.lastState();
    }

    @Override
    public long lastCompletedCheckpointId() {
      return delegate.lastCompletedCheckpointId();
    }

    @Override
    public void appendState(long checkpointId, byte[] payload) {
      delegate.appendState(checkpointId, payload);
    }

    @Override
    public void appendCompletion(long checkpointId) {
      delegate.appendCompletion(checkpointId);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
