package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash injection for fault tests: halts the JVM, as {@code kill -9} would, at a named
 * {@link CrashPoint}.
 *
 * <p>Off unless the JVM starts with {@code -Dtwophase.crashAt=POINT} or {@code POINT:n} (halt at
 * the n-th time the point is reached, default 1). {@link #ENABLED} is a static final constant, so
 * when the property is absent the JIT folds every {@code if (Faults.ENABLED)} away and the hooks
 * cost nothing on the hot path.
 */
@Internal
public final class Faults {

  /** Exit status of a JVM halted by a crash point, so tests can tell it from a real failure. */
  public static final int CRASH_EXIT_CODE = 86;

  /** Property naming the crash point. */
  public static final String PROPERTY = "twophase.crashAt";

  public static final boolean ENABLED;
  private static final CrashPoint TARGET;
  private static final long TARGET_HIT;
  private static final AtomicLong HITS = new AtomicLong();
  private static final Logger LOG = LoggerFactory.getLogger(Faults.class);

  static {
    String spec = System.getProperty(PROPERTY, "").trim();
    if (spec.isEmpty()) {
      ENABLED = false;
      TARGET = null;
      TARGET_HIT = 0;
    } else {
      int colon = spec.indexOf(':');
      String name = colon < 0 ? spec : spec.substring(0, colon);
      ENABLED = true;
      TARGET = CrashPoint.valueOf(name);
      TARGET_HIT = colon < 0 ? 1 : Long.parseLong(spec.substring(colon + 1));
      if (TARGET_HIT < 1) {
        throw new IllegalArgumentException(PROPERTY + ": hit count must be >= 1 in '" + spec + "'");
      }
    }
  }

  private Faults() {}

  /** Halts the JVM if this is the armed point's target hit. Call as {@code if (Faults.ENABLED)}. */
  public static void crashPoint(CrashPoint point) {
    if (ENABLED && shouldCrash(point)) {
      halt(point);
    }
  }

  /**
   * Counts a hit of {@code point} and tells whether the caller must crash now. For points where the
   * caller has to leave damage behind first (a torn record), it does so and then calls
   * {@link #halt}.
   */
  public static boolean shouldCrash(CrashPoint point) {
    return ENABLED && point == TARGET && HITS.incrementAndGet() == TARGET_HIT;
  }

  /** Halts the JVM without running shutdown hooks or flushing anything. */
  public static void halt(CrashPoint point) {
    LOG.warn("crash injected at {} (hit {})", point, TARGET_HIT);
    Runtime.getRuntime().halt(CRASH_EXIT_CODE);
  }
}
