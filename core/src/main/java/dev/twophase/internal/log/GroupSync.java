package dev.twophase.internal.log;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit for appenders that each need their own record durable.
 *
 * <p>Appenders write their records (numbered by a sequence) and then call {@link #await}. At most
 * one of them, the leader, runs the force; the force makes durable everything written when it
 * starts, so appenders that arrive meanwhile wait, and the next force covers all of them at once.
 * When a force ends, the leader first hands leadership to one waiter it did not cover, which forces
 * next, and then releases the waiters it covered, which wake one another in a binary tree. Each
 * waiter is woken by one other thread only, and the next force starts after one wake-up, not after
 * as many as the group held; both matter when fsyncs are short and threads many. (Waking every
 * waiter after every force cost more CPU than the forces themselves on a 2-CPU machine; waking the
 * covered waiters one by one from the leader delayed the next force by ~0.5 ms at 64 appenders.)
 *
 * <p>A lone appender never waits: it leads, forces and returns, so its cost is one write and one
 * force, as without group commit. There is no hand-off to a background thread (except when an
 * interrupt cut a sync short: SegmentedLog then has it done again on its retry thread).
 */
final class GroupSync {

  /** The force a leader runs; returns the sequence number it made durable. */
  interface Force {
    long force() throws IOException;
  }

  private static final int WAITING = 0;
  private static final int DONE = 1;
  private static final int LEAD = 2;
  /** Added to DONE or LEAD by {@link #awaitTurn} if the waiter was interrupted. */
  private static final int INTERRUPTED = 4;
  private static final Waiter[] NONE = new Waiter[0];

  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    final long seq;
    int state = WAITING; // guarded by the monitor
    /** Once released: the waiters released with it, and its place among them (monitor). */
    Waiter[] released;
    int index;

    Waiter(long seq) {
      this.seq = seq;
    }

    /**
     * Wakes this waiter's two children in the binary tree laid over its release batch (heap order:
     * children of {@code i} are {@code 2i+1} and {@code 2i+2}). Called by the waiter itself once it
     * has seen its release, outside the monitor.
     */
    void wakeChildren() {
      Waiter[] batch = released;
      int child = 2 * index + 1;
      if (child < batch.length) {
        LockSupport.unpark(batch[child].thread);
      }
      if (child + 1 < batch.length) {
        LockSupport.unpark(batch[child + 1].thread);
      }
    }
  }

  private final Object monitor = new Object();
  /** A leader is forcing, or an exclusive section runs. Guarded by the monitor. */
  @GuardedBy("monitor")
  private boolean busy;
  /** Highest sequence known durable. Guarded by the monitor. */
  @GuardedBy("monitor")
  private long durable;
  /** Appenders waiting, in arrival order. Guarded by the monitor. */
  @GuardedBy("monitor")
  private final List<Waiter> waiters = new ArrayList<>();

  long durable() {
    synchronized (monitor) {
      return durable;
    }
  }

  /**
   * Returns once record {@code seq} is durable, running {@code force} as the leader if this thread
   * is elected. A failed force throws here, and the next waiter is elected and runs its own force,
   * which must throw too (the caller's force records a failure before it throws, so that the next
   * one sees it): every waiter learns of it.
   */
  void await(long seq, Force force) throws IOException {
    Waiter me = null;
    synchronized (monitor) {
      if (durable >= seq) {
        return;
      }
      if (busy) {
        me = new Waiter(seq);
        waiters.add(me);
      } else {
        busy = true;
      }
    }
    boolean interrupted = false;
    if (me != null) {
      int outcome = awaitTurn(me);
      interrupted = (outcome & INTERRUPTED) != 0;
      if ((outcome & LEAD) == 0) {
        restoreInterrupt(interrupted);
        return;
      }
    }
    long target = -1;
    try {
      target = force.force();
    } finally {
      handOff(target);
      restoreInterrupt(interrupted);
    }
  }

  private static void restoreInterrupt(boolean interrupted) {
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Parks until released or elected leader; returns {@code DONE} or {@code LEAD}, with the bit
   * {@code INTERRUPTED} set if the thread was interrupted meanwhile. The interrupt status is
   * cleared while it waits: a pending interrupt would make every park return at once (a busy
   * loop), and a leader's force on an interruptible channel would close the channel, and so break
   * the log for every appender, not only this one.
   */
  private int awaitTurn(Waiter me) {
    boolean interrupted = false;
    for (;;) {
      LockSupport.park(this);
      if (Thread.interrupted()) {
        interrupted = true;
      }
      int state;
      synchronized (monitor) {
        state = me.state;
      }
      if (state == DONE) {
        me.wakeChildren(); // released and index: written with DONE, in the block read above
      }
      if (state != WAITING) {
        return interrupted ? state | INTERRUPTED : state;
      }
      // a spurious wake-up or a permit left by an earlier wait: keep waiting
    }
  }

  /**
   * Records {@code target} durable (ignored if negative), elects the earliest waiter it does not
   * cover leader (or, if none, frees the log for the next appender) and wakes it, then releases the
   * waiters it covers (see {@link #wakeReleased}).
   */
  private void handOff(long target) {
    Thread nextLeader = null;
    Waiter[] released;
    synchronized (monitor) {
      released = raise(target);
      if (waiters.isEmpty()) {
        busy = false;
        monitor.notifyAll(); // for runExclusive
      } else {
        Waiter next = waiters.remove(0);
        next.state = LEAD;
        nextLeader = next.thread;
      }
    }
    // The next leader first: its force is what everyone else waits for.
    if (nextLeader != null) {
      LockSupport.unpark(nextLeader);
    }
    wakeReleased(released);
  }

  /**
   * Under the monitor: raises {@code durable}, releases the waiters now covered and returns them in
   * arrival order (empty if none).
   */
  @GuardedBy("monitor")
  private Waiter[] raise(long target) {
    if (target > durable) {
      durable = target;
    }
    int covered = 0;
    for (Waiter w : waiters) {
      if (w.seq <= durable) {
        covered++;
      }
    }
    if (covered == 0) {
      return NONE;
    }
    Waiter[] released = new Waiter[covered];
    int i = 0;
    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.seq <= durable) {
        w.state = DONE;
        w.released = released;
        w.index = i;
        released[i++] = w;
        it.remove();
      }
    }
    return released;
  }

  /**
   * Wakes the first of {@code released}; each released waiter wakes up to two more before it
   * returns (a binary tree, see {@link Waiter#wakeChildren}). One {@code unpark} costs several
   * microseconds on a virtual machine, and a group can hold dozens of waiters: woken one by one by
   * the leader, they would delay the next force by the sum and keep one CPU busy, while the tree
   * spreads the wake-ups over every CPU and wakes the last waiter after only log2(n) steps.
   */
  private static void wakeReleased(Waiter[] released) {
    if (released.length > 0) {
      LockSupport.unpark(released[0].thread);
    }
  }

  /**
   * Someone holding the append lock made everything up to {@code target} durable by other means
   * (a roll forces the old segment): release the waiters it covers. Leadership is unchanged.
   */
  void advance(long target) {
    Waiter[] released;
    synchronized (monitor) {
      released = raise(target);
    }
    wakeReleased(released);
  }

  /**
   * Runs {@code action} now if no force is running and returns true; returns false otherwise (the
   * running leader is expected to do the same work after its force).
   */
  boolean runIfIdle(Runnable action) {
    synchronized (monitor) {
      if (busy) {
        return false;
      }
      busy = true;
    }
    try {
      action.run();
    } finally {
      handOff(-1);
    }
    return true;
  }

  /** Waits until no force is running, then runs {@code action} with none starting meanwhile. */
  <E extends Exception> void runExclusive(ExclusiveAction<E> action) throws E {
    boolean interrupted = false;
    synchronized (monitor) {
      while (busy) {
        try {
          monitor.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      busy = true;
    }
    long target = -1;
    try {
      target = action.run();
    } finally {
      handOff(target);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Work done while no force runs; returns the sequence it made durable, or -1. */
  interface ExclusiveAction<E extends Exception> {
    long run() throws E;
  }
}
