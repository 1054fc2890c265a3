package dev.twophase;

import dev.twophase.annotation.Experimental;

/**
 * A monotonic time source in nanoseconds, for intervals measured inside one process (the time
 * since the last checkpoint, how long a commit took); like Caffeine's {@code Ticker}. Unlike a
 * {@link java.time.Clock}, it does not jump when the wall clock is set. Inject a manual one in
 * tests.
 */
@FunctionalInterface
@Experimental
public interface Ticker {

  /** Nanoseconds since an arbitrary origin; only differences mean something. */
  long read();

  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }
}
