package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A decided checkpoint: durable in the state log, so its data will become visible in every
 * participant (now, or by recovery after a crash). {@link #committed()} tells when the commits in
 * this process are done.
 */
@PublicEvolving
public final class Checkpoint {

  private final long id;
  private final CompletableFuture<Void> committed;

  Checkpoint(long id, CompletableFuture<Void> committed) {
    this.id = id;
    this.committed = committed;
  }

  public long id() {
    return id;
  }

  /**
   * Completes when every participant committed this checkpoint's transactions; completes
   * exceptionally if the coordinator failed first (the log still holds the decision, and the next
   * start commits it).
   */
  public CompletionStage<Void> committed() {
    return committed.minimalCompletionStage();
  }

  /**
   * Waits for {@link #committed()}.
   *
   * @throws TwoPhaseException if the coordinator failed, or the wait timed out (the commit goes on)
   */
  public void awaitCommitted(Duration timeout) {
    try {
      committed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof TwoPhaseException twoPhaseException
          ? twoPhaseException
          : new TwoPhaseException("checkpoint " + id + " was not committed", cause);
    } catch (TimeoutException e) {
      throw new RetriableTwoPhaseException(
          "checkpoint " + id + " not committed within " + timeout + "; its commit is still being retried",
          e, id, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TwoPhaseException("interrupted while waiting for checkpoint " + id, e);
    }
  }

  @Override
  public String toString() {
    return "Checkpoint{" + id + (committed.isDone() ? ", committed" : "") + '}';
  }
}
