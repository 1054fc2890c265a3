package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Scheduler;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The waits between attempts on a branch still attached to another session go through the
 * scheduler, never a sleep of their own: with a scheduler that runs each pause at once the
 * retries take no time, and the pauses it was asked for are the backoff.
 */
class AttachedBranchRetryTest {

  /** Runs every task at once and records the delays it was asked for. */
  private static final class Immediate implements Scheduler {
    final List<Duration> delays = new ArrayList<>();

    @Override
    public void schedule(java.util.concurrent.Executor executor, Runnable command, Duration delay) {
      delays.add(delay);
      executor.execute(command);
    }
  }

  private static BranchStillAttachedException attached(int attempt) {
    return new BranchStillAttachedException("attempt " + attempt, null);
  }

  @Test
  void retriesWithBackoffUntilTheBranchIsFree() throws Exception {
    Immediate scheduler = new Immediate();
    int[] attempts = {0};
    Resolution r = new AttachedBranchRetry(scheduler).run(() -> {
      if (++attempts[0] <= 3) {
        throw attached(attempts[0]);
      }
      return Resolution.DONE;
    });
    assertEquals(Resolution.DONE, r);
    assertEquals(4, attempts[0]);
    assertEquals(List.of(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40)), scheduler.delays);
  }

  @Test
  void anAnswerThatIsNotStillAttachedIsNotRetried() throws Exception {
    Immediate scheduler = new Immediate();
    java.sql.SQLException other = new java.sql.SQLException("broken");
    java.sql.SQLException thrown = assertThrows(java.sql.SQLException.class,
        () -> new AttachedBranchRetry(scheduler).run(() -> {
          throw other;
        }));
    assertSame(other, thrown);
    assertEquals(List.of(), scheduler.delays);
    assertEquals(Resolution.NOT_PREPARED,
        new AttachedBranchRetry(scheduler).run(() -> Resolution.NOT_PREPARED));
  }

  @Test
  void givesUpWithTheLastAnswerOnceThePausesAddUpToTheBudget() {
    Immediate scheduler = new Immediate();
    int[] attempts = {0};
    BranchStillAttachedException last = assertThrows(BranchStillAttachedException.class,
        () -> new AttachedBranchRetry(scheduler).run(() -> {
          throw attached(++attempts[0]);
        }));
    assertEquals("attempt " + attempts[0], last.getMessage());
    long total = scheduler.delays.stream().mapToLong(Duration::toMillis).sum();
    assertEquals(AttachedBranchRetry.BUDGET_MILLIS, total);
    assertEquals(scheduler.delays.size() + 1, attempts[0], "one attempt after every pause");
    assertTrue(scheduler.delays.stream().allMatch(d -> d.toMillis() <= AttachedBranchRetry.MAX_PAUSE_MILLIS),
        scheduler.delays.toString());
  }

  @Test
  void anInterruptEndsTheWaitWithTheAnswerAndKeepsTheFlag() {
    Scheduler never = (executor, command, delay) -> { }; // the pause would never end
    Thread.currentThread().interrupt();
    try {
      BranchStillAttachedException e = assertThrows(BranchStillAttachedException.class,
          () -> new AttachedBranchRetry(never).run(() -> {
            throw attached(1);
          }));
      assertEquals("attempt 1", e.getMessage());
      assertTrue(Thread.currentThread().isInterrupted());
    } finally {
      Thread.interrupted();
    }
  }
}
