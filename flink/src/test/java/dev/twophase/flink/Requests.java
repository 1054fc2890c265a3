package dev.twophase.flink;

import dev.twophase.flink.internal.Committable;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;

/**
 * A {@link CommitRequest} that records what the committer signalled, with Flink's behaviour for
 * each signal: {@code signalFailedWithUnknownReason} throws, as Flink's does.
 */
final class Requests implements CommitRequest<Committable> {

  Committable committable;
  int retries;
  String signal = "none";
  Throwable failure;

  Requests(Committable committable) {
    this.committable = committable;
  }

  @Override
  public Committable getCommittable() {
    return committable;
  }

  @Override
  public int getNumberOfRetries() {
    return retries;
  }

  @Override
  public void signalFailedWithKnownReason(Throwable t) {
    signal = "failedKnown";
    failure = t;
  }

  @Override
  public void signalFailedWithUnknownReason(Throwable t) {
    signal = "failedUnknown";
    failure = t;
    throw new IllegalStateException("Failed to commit " + committable, t);
  }

  @Override
  public void retryLater() {
    signal = "retry";
    retries++;
  }

  @Override
  public void updateAndRetryLater(Committable committable) {
    this.committable = committable;
    retryLater();
    signal = "updateAndRetry";
  }

  @Override
  public void signalAlreadyCommitted() {
    signal = "alreadyCommitted";
  }
}
