package dev.twophase.internal.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
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

  /** Starts {@code n} threads awaiting sequences {@code from..from+n-1}; returns their latch. */
  private CountDownLatch awaitAll(List<Thread> threads, int from, int n, GroupSync.Force force) {
    CountDownLatch returned = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      long seq = (long) from + i;
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

  /**
   * The same threads, round after round, without waiting for them to park: waiters released
   * before they park, and permits left over from an earlier round's late wake-ups, must neither
   * lose nor fake a release.
   */
  @Test
  void roundsOfTheSameThreadsReleasedBeforeOrAfterTheyPark() throws Exception {
    int threads = 24;
    int rounds = 300;
    AtomicLong written = new AtomicLong();
    AtomicLong seqs = new AtomicLong();
    @SuppressWarnings("ThreadPriorityCheck") // a hint only: it widens the window the test races in
    GroupSync.Force force =
        () -> {
          forces.incrementAndGet();
          Thread.yield(); // let others arrive while "forcing"
          return written.get();
        };
    java.util.concurrent.CyclicBarrier round = new java.util.concurrent.CyclicBarrier(threads);
    java.util.concurrent.ConcurrentLinkedQueue<Throwable> errors =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  for (int r = 0; r < rounds; r++) {
                    round.await(10, TimeUnit.SECONDS);
                    long seq;
                    synchronized (written) { // "write" the record: sequence and written together
                      seq = seqs.incrementAndGet();
                      written.set(seq);
                    }
                    sync.await(seq, force);
                    if (sync.durable() < seq) {
                      throw new AssertionError("returned before " + seq + " was durable");
                    }
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              });
      t.start();
      all.add(t);
    }
    for (Thread t : all) {
      t.join(TimeUnit.SECONDS.toMillis(60));
      assertTrue(!t.isAlive(), "an appender is still waiting: a release was lost");
    }
    assertTrue(errors.isEmpty(), "errors: " + errors);
    assertEquals((long) threads * rounds, sync.durable());
  }

  @Test
  void aFailedForceReachesEveryWaiterAndTheNextLeaderRunsItsOwnForce() throws Exception {
    CountDownLatch leaderForcing = new CountDownLatch(1);
    CountDownLatch finishForce = new CountDownLatch(1);
    AtomicInteger failedForces = new AtomicInteger();
    GroupSync.Force force =
        () -> {
          leaderForcing.countDown();
          awaitUninterruptibly(finishForce);
          failedForces.incrementAndGet();
          throw new java.io.IOException("injected");
        };
    int waiters = 9;
    java.util.concurrent.ConcurrentLinkedQueue<Throwable> thrown =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i <= waiters; i++) {
      long seq = i + 1L;
      Thread t =
          new Thread(
              () -> {
                try {
                  sync.await(seq, force);
                } catch (java.io.IOException e) {
                  thrown.add(e);
                }
              });
      t.start();
      threads.add(t);
      if (i == 0) {
        assertTrue(leaderForcing.await(10, TimeUnit.SECONDS));
      }
    }
    awaitParked(threads.subList(1, threads.size()), waiters);
    finishForce.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(10));
      assertTrue(!t.isAlive(), "a waiter was never told of the failure");
    }
    // Nothing was made durable, so each waiter in turn led its own force, and each failed.
    assertEquals(waiters + 1, thrown.size());
    assertEquals(waiters + 1, failedForces.get());
    assertEquals(0, sync.durable());
  }

  /**
   * A waiter interrupted while it waits keeps waiting (its release is what it waits for), leads its
   * force with the interrupt status clear (an interruptible channel would otherwise be closed by
   * the force, for every appender), and returns with the status restored.
   */
  @Test
  void anInterruptedWaiterLeadsWithTheStatusClearAndGetsItBack() throws Exception {
    CountDownLatch leaderForcing = new CountDownLatch(1);
    CountDownLatch finishForce = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean interruptedInForce =
        new java.util.concurrent.atomic.AtomicBoolean();
    GroupSync.Force first =
        () -> {
          leaderForcing.countDown();
          awaitUninterruptibly(finishForce);
          return 1; // covers the leader only
        };
    GroupSync.Force second =
        () -> {
          interruptedInForce.set(Thread.currentThread().isInterrupted());
          return 2;
        };
    List<Thread> threads = new ArrayList<>();
    CountDownLatch leaderDone = awaitAll(threads, 1, 1, first);
    assertTrue(leaderForcing.await(10, TimeUnit.SECONDS));
    java.util.concurrent.atomic.AtomicBoolean statusAfter =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread waiter =
        new Thread(
            () -> {
              try {
                sync.await(2, second);
              } catch (java.io.IOException e) {
                throw new AssertionError(e);
              }
              statusAfter.set(Thread.currentThread().isInterrupted());
            });
    waiter.start();
    awaitParked(List.of(waiter), 1);
    waiter.interrupt();
    Thread.sleep(20);
    assertTrue(waiter.isAlive(), "an interrupt must not end the wait");
    finishForce.countDown();
    assertTrue(leaderDone.await(10, TimeUnit.SECONDS));
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertTrue(!waiter.isAlive());
    assertTrue(!interruptedInForce.get(), "the force ran with the interrupt status set");
    assertTrue(statusAfter.get(), "the interrupt status was not restored");
    assertEquals(2, sync.durable());
  }
}
