package dev.twophase.internal.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hand-off of {@link GroupSync}: one force releases every waiter it covers (they wake one
 * another in a tree, so every size of group is checked, odd and even), and a waiter it does not
 * cover leads the next force.
 */
class GroupSyncTest {

  private final GroupSync sync = new GroupSync();
  private final AtomicInteger forces = new AtomicInteger();

  /** Starts {@code n} threads that await sequences {@code 1..n}; returns their latch of returns. */
  private CountDownLatch awaitAll(List<Thread> threads, int from, int n, GroupSync.Force force) {
    CountDownLatch returned = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      long seq = from + i;
      Thread t =
          new Thread(
              () -> {
                try {
                  sync.await(seq, force);
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
                returned.countDown();
              },
              "appender-" + seq);
      t.start();
      threads.add(t);
    }
    return returned;
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Waits until {@code n} threads are parked in the sync (a waiting appender parks there). */
  private static void awaitParked(List<Thread> threads, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (;;) {
      int parked = 0;
      for (Thread t : threads) {
        if (t.getState() == Thread.State.WAITING) {
          parked++;
        }
      }
      if (parked >= n) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "only " + parked + " of " + n + " appenders parked");
      Thread.sleep(1);
    }
  }

  @ParameterizedTest(name = "{0} waiters")
  @ValueSource(ints = {1, 2, 3, 6, 7, 31, 64, 100})
  void oneForceReleasesEveryWaiterItCovers(int waiters) throws Exception {
    CountDownLatch leaderForcing = new CountDownLatch(1);
    CountDownLatch finishForce = new CountDownLatch(1);
    AtomicLong written = new AtomicLong(1);
    GroupSync.Force force =
        () -> {
          forces.incrementAndGet();
          long target = written.get();
          leaderForcing.countDown();
          awaitUninterruptibly(finishForce);
          return target;
        };
    List<Thread> threads = new ArrayList<>();
    CountDownLatch leaderDone = awaitAll(threads, 1, 1, force);
    assertTrue(leaderForcing.await(10, TimeUnit.SECONDS));

    // These arrive while the leader forces: they are written before the leader's force "ends",
    // so it covers them (as a leader whose write happened to include them would).
    written.set(1 + waiters);
    List<Thread> waiting = new ArrayList<>();
    CountDownLatch waitersDone = awaitAll(waiting, 2, waiters, force);
    awaitParked(waiting, waiters);
    finishForce.countDown();

    assertTrue(leaderDone.await(10, TimeUnit.SECONDS), "the leader did not return");
    // Covered by the first force only if it read `written` after they arrived: it did not (it read
    // 1), so exactly one more force, led by the earliest waiter, covers all of them.
    assertTrue(waitersDone.await(10, TimeUnit.SECONDS), "not every waiter was released");
    assertEquals(2, forces.get(), "one force for the leader, one shared by all waiters");
    assertEquals(1 + waiters, sync.durable());
  }

  @ParameterizedTest(name = "{0} waiters")
  @ValueSource(ints = {1, 2, 5, 64})
  void waitersCoveredByTheRunningForceAreReleasedWithoutAnotherForce(int waiters)
      throws Exception {
    CountDownLatch leaderForcing = new CountDownLatch(1);
    CountDownLatch finishForce = new CountDownLatch(1);
    GroupSync.Force force =
        () -> {
          forces.incrementAndGet();
          leaderForcing.countDown();
          awaitUninterruptibly(finishForce);
          return 1L + waiters; // everything written before the force began, waiters included
        };
    List<Thread> threads = new ArrayList<>();
    CountDownLatch leaderDone = awaitAll(threads, 1, 1, force);
    assertTrue(leaderForcing.await(10, TimeUnit.SECONDS));
    List<Thread> waiting = new ArrayList<>();
    CountDownLatch waitersDone = awaitAll(waiting, 2, waiters, force);
    awaitParked(waiting, waiters);
    finishForce.countDown();

    assertTrue(leaderDone.await(10, TimeUnit.SECONDS));
    assertTrue(waitersDone.await(10, TimeUnit.SECONDS), "not every waiter was released");
    assertEquals(1, forces.get());
  }
}
