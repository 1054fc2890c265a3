package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.TwoPhaseException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The self-driving coordinator's committer thread: commits decided checkpoints in id order,
 * retries a failed commit with exponential backoff (waited out by the configured
 * {@link dev.twophase.Scheduler}) without ever dropping it, writes completion marks, and retires
 * handles. Later checkpoints queue behind a retried one, so a resource never sees n + 1 committed
 * before n.
 *
 * <p>An exception or an {@link Error} from a participant never escapes this thread unseen: a
 * retriable failure is retried, anything else stops the coordinator with a
 * {@link FatalTwoPhaseException} that every waiter receives.
 */
@Internal
public final class CommitLoop {

  private final CoordinatorEngine core;
  private final CoordinatorLog log;
  private final ThreadPoolExecutor executor;
  /** Hands scheduled retries to the executor; a rejection (after close) is logged, not lost. */
  private final Executor retries;
  private volatile Thread thread;
  /** Set by close() once it stopped waiting: the loop ends its attempt and stops. */
  private volatile boolean closing;

  // Committer thread only.
  private boolean retryScheduled;
  private long retryingCheckpoint = -1;
  private int attempt;

  public CommitLoop(CoordinatorEngine core, CoordinatorLog log) {
    this.core = core;
    this.log = log;
    this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "twophase-committer-" + core.coordinatorId());
      t.setDaemon(true);
      thread = t;
      return t;
    });
    this.retries = command -> {
      try {
        executor.execute(command);
      } catch (RejectedExecutionException e) {
        core.log().info("coordinator {}: a scheduled commit retry did not run because the coordinator "
            + "closed; the next start commits what is pending", core.coordinatorId());
      }
    };
  }

  /** Whether the caller runs on the committer thread (a participant's commit, a listener). */
  public boolean isCommitterThread() {
    return Thread.currentThread() == thread;
  }

  /** Asks the committer to commit what is pending. */
  public void drainLater() {
    submit(this::drain);
  }

  /** Asks the committer to retire these checkpoints' handles (their removal is durable). */
  public void retireLater(List<PendingCheckpoint> checkpoints) {
    if (!checkpoints.isEmpty()) {
      submit(() -> core.retire(checkpoints));
    }
  }

  private void submit(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      // Closed: what was pending stays in the log, and the next start commits it.
      core.log().debug("coordinator {}: committer closed, task not run", core.coordinatorId());
    }
  }

  private void drain() {
    if (retryScheduled || closing || core.state() == CoordinatorState.FAILED) {
      return; // a scheduled retry resumes in order; new work must not jump its backoff
    }
    for (PendingCheckpoint checkpoint : core.pending().snapshot()) {
      if (closing) {
        return;
      }
      try {
        core.commitCheckpoint(checkpoint);
      } catch (FatalTwoPhaseException e) {
        core.fail(e);
        return;
      } catch (RuntimeException e) {
        scheduleRetry(checkpoint, e);
        return;
      } catch (Error e) {
        core.fail(new FatalTwoPhaseException("a participant threw " + e + " while committing checkpoint "
            + checkpoint.id() + " of coordinator '" + core.coordinatorId() + "'; the coordinator "
            + "stopped: close it and start a new one, which commits the checkpoint again",
            e, checkpoint.id(), null));
        return;
      }
      attempt = 0;
      retryingCheckpoint = -1;
      try {
        log.appendCompletion(checkpoint.id());
      } catch (RuntimeException | Error e) {
        core.log().warn("coordinator {}: completion mark of checkpoint {} not written; recovery will "
            + "re-commit it idempotently", core.coordinatorId(), checkpoint.id(), e);
      }
      core.completed(checkpoint, true);
    }
  }

  private void scheduleRetry(PendingCheckpoint checkpoint, RuntimeException cause) {
    if (closing) {
      core.log().info("coordinator {}: commit of checkpoint {} failed while closing ({}); the next "
          + "start commits it", core.coordinatorId(), checkpoint.id(), cause.getMessage());
      return;
    }
    if (retryingCheckpoint != checkpoint.id()) {
      retryingCheckpoint = checkpoint.id();
      attempt = 0;
    }
    attempt++;
    CoordinatorConfig c = core.config();
    double factor = Math.pow(c.commitBackoffMultiplier(), Math.min(attempt - 1, 62));
    long delay = (long) Math.min((double) c.commitMaxBackoff().toNanos(),
        (double) c.commitInitialBackoff().toNanos() * factor);
    String participant = cause instanceof TwoPhaseException t ? t.participant().orElse(null) : null;
    core.log().warn("coordinator {}: commit of checkpoint {} failed (attempt {}), retrying in {} ms: {}",
        core.coordinatorId(), checkpoint.id(), attempt, TimeUnit.NANOSECONDS.toMillis(delay), cause.getMessage());
    retryScheduled = true;
    c.scheduler().schedule(retries, () -> {
      retryScheduled = false;
      drain();
    }, Duration.ofNanos(delay));
    core.listener().onCommitRetried(new CoordinatorListener.CommitRetry(
        core.coordinatorId(), checkpoint.id(), participant, String.valueOf(checkpoint.nextHandle()),
        attempt, Duration.ofNanos(delay), cause));
  }

  /**
   * Stops the loop: a running attempt finishes (never interrupted: an interrupted FileChannel
   * closes, and a shared log with it), scheduled retries are dropped. Returns whether the thread
   * ended within {@code timeout}.
   */
  public boolean close(Duration timeout) throws InterruptedException {
    closing = true;
    executor.shutdown();
    return executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
