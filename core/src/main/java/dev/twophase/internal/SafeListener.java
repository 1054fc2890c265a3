package dev.twophase.internal;

import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import java.time.Duration;
import org.slf4j.Logger;

/** Shields the protocol from listeners: what a listener throws is logged, never propagated. */
final class SafeListener implements CoordinatorListener {

  private final Logger log;
  private static final CoordinatorListener NONE = new CoordinatorListener() {};

  private final CoordinatorListener delegate;

  private SafeListener(CoordinatorListener delegate, Logger log) {
    this.delegate = delegate;
    this.log = log;
  }

  /** Wraps {@code listener} (none if null); what it throws is logged to {@code log}. */
  static CoordinatorListener wrap(CoordinatorListener listener, Logger log) {
    return new SafeListener(listener == null ? NONE : listener, log);
  }

  private void guard(String event, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException | Error e) {
      // An Error too: a listener must never leave the protocol half-done (a future open, a
      // checkpoint neither decided nor failed).
      log.warn("listener {} threw from {}; ignored", delegate, event, e);
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
  public void onCheckpointDelayed(String coordinatorId, long checkpointId, Duration waited) {
    guard("onCheckpointDelayed", () -> delegate.onCheckpointDelayed(coordinatorId, checkpointId, waited));
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
