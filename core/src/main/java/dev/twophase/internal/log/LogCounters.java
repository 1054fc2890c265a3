package dev.twophase.internal.log;

import dev.twophase.StateLogStats;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a log counts while it is open, read as {@link StateLogStats}. Thread-safe. The counts
 * written only under the append lock have one writer at a time: {@link #add} publishes them with
 * a release store instead of an atomic read-modify-write, which costs next to nothing on the append
 * path.
 */
final class LogCounters {

  /** Adds {@code n} to a count written only under the append lock. */
  static void add(AtomicLong count, long n) {
    count.setRelease(count.getPlain() + n);
  }

  /** STATE records staged (append lock). */
  final AtomicLong stateAppends = new AtomicLong();
  /** COMPLETED records written (append lock). */
  final AtomicLong completionMarks = new AtomicLong();
  /** Bytes of those records (append lock). */
  final AtomicLong appendedBytes = new AtomicLong();

  /** Syncs of segment files (including those of open, rolls and close). */
  final AtomicLong syncs = new AtomicLong();
  /** Rolls to a new segment holding only the live state. */
  final AtomicLong compactions = new AtomicLong();
  /** Times a standby descriptor took over after an interrupt closed a channel. */
  final AtomicLong takeovers = new AtomicLong();
  /** Of {@link #takeovers}, those during a sync. */
  final AtomicLong syncTakeovers = new AtomicLong();

  StateLogStats snapshot() {
    long takeoversDuringSync = syncTakeovers.get();
    return StateLogStats.of(stateAppends.get(), completionMarks.get(), appendedBytes.get(),
        syncs.get(), compactions.get(), Math.max(takeovers.get(), takeoversDuringSync),
        takeoversDuringSync);
  }
}
