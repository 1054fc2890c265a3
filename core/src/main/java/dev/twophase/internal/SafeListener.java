package dev.twophase.internal;

import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shields the protocol from listeners: what a listener throws is logged, never propagated. */
final class SafeListener implements CoordinatorListener {

  private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);
  private static final CoordinatorListener NONE = new CoordinatorListener() {};

  private final CoordinatorListener delegate;

  private SafeListener(CoordinatorListener delegate) {
    this.delegate = delegate;
  }

  static CoordinatorListener wrap(CoordinatorListener listener) {
    return new SafeListener(listener == null ? NONE : listener);
  }

  private void guard(String event, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("listener {} threw from {}; ignored", delegate, event, e);
    }
  }

  @Override
  public void onCheckpointStarted(String coordinatorId, long checkpointId) {
    guard("onCheckpointStarted", () -> delegate.onCheckpointStarted(coordinatorId, checkpointId));
  }

  @Override
  public void onCheckpointDecided(String coordinatorId, long checkpointId, Duration took) {
    guard("onCheckpointDecided", () -> delegate.onCheckpointDecided(coordinatorId, checkpointId, took));
  }

  @Override
  public void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {
    guard("onCheckpointCommitted",
        () -> delegate.onCheckpointCommitted(coordinatorId, checkpointId, sinceDecided));
  }

  @Override
  public void onCheckpointFailed(String coordinatorId, long checkpointId, Throwable cause) {
    guard("onCheckpointFailed", () -> delegate.onCheckpointFailed(coordinatorId, checkpointId, cause));
  }

  @Override
  public void onCommitRetried(CommitRetry retry) {
    guard("onCommitRetried", () -> delegate.onCommitRetried(retry));
  }

  @Override
  public void onRecoveryHandled(RecoveryAction action) {
    guard("onRecoveryHandled", () -> delegate.onRecoveryHandled(action));
  }

  @Override
  public void onTransactionTimeoutWarning(TimeoutWarning warning) {
    guard("onTransactionTimeoutWarning", () -> delegate.onTransactionTimeoutWarning(warning));
  }

  @Override
  public void onStateTransition(String coordinatorId, CoordinatorState from, CoordinatorState to) {
    guard("onStateTransition", () -> delegate.onStateTransition(coordinatorId, from, to));
  }
}
