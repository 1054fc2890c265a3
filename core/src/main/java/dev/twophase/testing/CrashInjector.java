package dev.twophase.testing;

import dev.twophase.annotation.Experimental;
import dev.twophase.FaultInjector;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FaultInjector} that halts the JVM, as {@code kill -9} would, the {@code hit}-th time one
 * named point is reached: no shutdown hook runs, nothing is flushed or closed. Crash tests run the
 * program under test in a child JVM with one of these, then recover in a new JVM.
 *
 * <p>Only the target point's hits are counted, per injector. The exit status is {@link #EXIT_CODE},
 * so a test can tell a crash from a failure.
 */
@Experimental
public final class CrashInjector implements FaultInjector {

  /** Exit status of a JVM halted by a crash injector. */
  public static final int EXIT_CODE = 86;

  private static final Logger LOG = LoggerFactory.getLogger(CrashInjector.class);

  private final String point;
  private final long hit;
  private final AtomicLong hits = new AtomicLong();

  private CrashInjector(String point, long hit) {
    this.point = Objects.requireNonNull(point, "point");
    if (point.isBlank()) {
      throw new IllegalArgumentException("point must not be blank");
    }
    if (hit < 1) {
      throw new IllegalArgumentException("hit must be >= 1, was " + hit + " (for point " + point + ")");
    }
    this.hit = hit;
  }

  /** Halts the JVM the {@code hit}-th time {@code point} is reached (counting from 1). */
  public static CrashInjector haltAt(String point, long hit) {
    return new CrashInjector(point, hit);
  }

  /**
   * Parses {@code POINT} or {@code POINT:HIT} (hit 1 if omitted); a null or blank spec gives
   * {@link FaultInjector#none()}.
   *
   * @throws IllegalArgumentException if the hit is not a number >= 1
   */
  public static FaultInjector parse(String spec) {
    if (spec == null || spec.isBlank()) {
      return FaultInjector.none();
    }
    String s = spec.trim();
    int colon = s.lastIndexOf(':');
    if (colon < 0) {
      return haltAt(s, 1);
    }
    long hit;
    try {
      hit = Long.parseLong(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "crash spec '" + spec + "': expected POINT or POINT:HIT with HIT a number >= 1", e);
    }
    return haltAt(s.substring(0, colon), hit);
  }

  /** The point this injector halts at. */
  public String point() {
    return point;
  }

  /** The hit of {@link #point()} at which it halts. */
  public long hit() {
    return hit;
  }

  /** How often {@link #point()} was reached so far. */
  public long hits() {
    return hits.get();
  }

  @Override
  public void reached(String reached) {
    if (point.equals(reached) && hits.incrementAndGet() == hit) {
      LOG.warn("crash injected at {} (hit {})", point, hit);
      System.out.flush();
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  @Override
  public String toString() {
    return "CrashInjector{" + point + ":" + hit + "}";
  }
}
