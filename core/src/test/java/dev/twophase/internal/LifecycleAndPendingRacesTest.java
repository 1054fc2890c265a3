package dev.twophase.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorConfig.WhenPendingFull;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The two races of issue-8 item 8 that a plain test can provoke, each at its interleaving. */
class LifecycleAndPendingRacesTest {

  /**
   * The committer fails the coordinator between the application thread's state check and its
   * adding the decided checkpoint: the checkpoint's future must fail at once, not stay open until
   * close().
   */
  @Test
  void aCheckpointAddedAfterTheFailureLearnsItAtOnce() {
    PendingCheckpoints pending = new PendingCheckpoints(0, WhenPendingFull.BLOCK, Ticker.system());
    FatalTwoPhaseException failure = new FatalTwoPhaseException("committer failed");
    pending.failAll(failure); // the committer's fail() ran first...
    PendingCheckpoint late = new PendingCheckpoint(7, 1);
    pending.add(late); // ...then the application thread adds the checkpoint it decided
    assertTrue(late.committed().isCompletedExceptionally());
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> late.committed().get(0, TimeUnit.SECONDS));
    assertEquals(failure, e.getCause());
  }

  /**
   * A listener that waits for another thread which itself needs the life cycle (to fail the
   * coordinator) deadlocked while transitions held the lock around listener calls.
   */
  @Test
  void listenersAreCalledOutsideTheLifecycleLock() throws Exception {
    Lifecycle[] holder = new Lifecycle[1];
    CoordinatorListener listener = new CoordinatorListener() {
      @Override
      public void onStateTransition(String coordinatorId, CoordinatorState from, CoordinatorState to) {
        if (to == CoordinatorState.RUNNING) {
          CompletableFuture<Void> other = CompletableFuture.runAsync(
              () -> holder[0].fail(new FatalTwoPhaseException("from another thread")));
          try {
            other.get(10, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new AssertionError("the other thread could not fail the coordinator: " + e, e);
          }
        }
      }
    };
    Lifecycle lifecycle = new Lifecycle("c", listener, LoggerFactory.getLogger("test"));
    holder[0] = lifecycle;
    lifecycle.transition(CoordinatorState.RUNNING);
    assertEquals(CoordinatorState.FAILED, lifecycle.state());
  }
}
