package dev.twophase.internal.log;

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
 * When a force ends, the leader wakes exactly the waiters it covered and hands leadership to one
 * waiter it did not cover, which forces next; nobody else is woken. Every appender is thus woken at
 * most once, which matters when fsyncs are short and threads many: waking every waiter after every
 * force costs more CPU than the forces themselves on a small machine.
 *
 * <p>A lone appender never waits: it leads, forces and returns, so its cost is one write and one
 * force, as without group commit. There is no hand-off to a background thread.
 */
final class GroupSync {

  /** The force a leader runs; returns the sequence number it made durable. */
  interface Force {
    long force() throws IOException;
  }

  private static final int WAITING = 0;
  private static final int DONE = 1;
  private static final int LEAD = 2;

  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    final long seq;
    int state = WAITING; // guarded by the monitor

    Waiter(long seq) {
      this.seq = seq;
    }
  }

  private final Object monitor = new Object();
  /** A leader is forcing, or an exclusive section runs. Guarded by the monitor. */
  private boolean busy;
  /** Highest sequence known durable. Guarded by the monitor. */
  private long durable;
  /** Appenders waiting, in arrival order. Guarded by the monitor. */
  private final List<Waiter> waiters = new ArrayList<>();

  long durable() {
    synchronized (monitor) {
      return durable;
    }
  }

  /**
   * Returns once record {@code seq} is durable, running {@code force} as the leader if this thread
   * is elected. A failed force throws here, and the next waiter is elected and runs its own force
   * (which sees the failure and throws too): every waiter learns of it.
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
    if (me != null && !awaitTurn(me)) {
      return;
    }
    long target = -1;
    try {
      target = force.force();
    } finally {
      handOff(target);
    }
  }

  /** Parks until released (returns false) or elected leader (returns true). */
  private boolean awaitTurn(Waiter me) {
    for (;;) {
      LockSupport.park(this);
      synchronized (monitor) {
        if (me.state == DONE) {
          return false;
        }
        if (me.state == LEAD) {
          return true;
        }
      }
      // spurious wake-up, or an interrupt (held back by the caller): keep waiting
    }
  }

  /**
   * Records {@code target} durable (ignored if negative), wakes the waiters it covers, and elects
   * the earliest remaining waiter leader or, if none, frees the log for the next appender.
   */
  private void handOff(long target) {
    List<Thread> wake = new ArrayList<>();
    synchronized (monitor) {
      raise(target, wake);
      if (waiters.isEmpty()) {
        busy = false;
        monitor.notifyAll(); // for runExclusive
      } else {
        Waiter next = waiters.remove(0);
        next.state = LEAD;
        wake.add(next.thread);
      }
    }
    wake.forEach(LockSupport::unpark);
  }

  /** Under the monitor: raises {@code durable} and releases the waiters now covered. */
  private void raise(long target, List<Thread> wake) {
    if (target > durable) {
      durable = target;
    }
    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.seq <= durable) {
        w.state = DONE;
        it.remove();
        wake.add(w.thread);
      }
    }
  }

  /**
   * Someone holding the append lock made everything up to {@code target} durable by other means
   * (a roll forces the old segment): release the waiters it covers. Leadership is unchanged.
   */
  void advance(long target) {
    List<Thread> wake = new ArrayList<>();
    synchronized (monitor) {
      raise(target, wake);
    }
    wake.forEach(LockSupport::unpark);
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
