package dev.twophase;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Collects listener events as strings, in order. */
final class RecordingListener implements CoordinatorListener {

  final List<String> events = new CopyOnWriteArrayList<>();
  final List<TimeoutWarning> warnings = new CopyOnWriteArrayList<>();
  final List<RecoveryAction> recoveries = new CopyOnWriteArrayList<>();
  final List<CommitRetry> retries = new CopyOnWriteArrayList<>();

  @Override
  public void onCheckpointStarted(String coordinatorId, long checkpointId) {
    events.add("started " + checkpointId);
  }

  @Override
  public void onCheckpointDecided(String coordinatorId, long checkpointId, Duration took) {
    events.add("decided " + checkpointId);
  }

  @Override
  public void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {
    events.add("committed " + checkpointId);
  }

  @Override
  public void onCheckpointFailed(String coordinatorId, long checkpointId, Throwable cause) {
    events.add("failed " + checkpointId);
  }

  @Override
  public void onCommitRetried(CommitRetry retry) {
    retries.add(retry);
    events.add("retry " + retry.checkpointId() + " #" + retry.attempt());
  }

  @Override
  public void onRecoveryHandled(RecoveryAction action) {
    recoveries.add(action);
    events.add("recovery " + action.checkpointId() + " " + action.participant() + " " + action.kind());
  }

  @Override
  public void onTransactionTimeoutWarning(TimeoutWarning warning) {
    warnings.add(warning);
    events.add("timeout-warning " + warning.checkpointId() + " " + warning.participant());
  }
}
