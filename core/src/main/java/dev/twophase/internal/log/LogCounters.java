package dev.twophase.internal.log;

import java.util.concurrent.atomic.AtomicLong;

/** What a log counts while it is open. Thread-safe. */
final class LogCounters {

  /** Syncs of segment files (including those of open, rolls and close). */
  final AtomicLong syncs = new AtomicLong();
  /** Rolls to a new segment holding only the live state. */
  final AtomicLong compactions = new AtomicLong();
  /** Times a standby descriptor took over after an interrupt closed a channel. */
  final AtomicLong takeovers = new AtomicLong();
  /** Of {@link #takeovers}, those during a sync. */
  final AtomicLong syncTakeovers = new AtomicLong();
}
