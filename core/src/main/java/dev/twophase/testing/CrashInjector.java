package dev.twophase.testing;

import dev.twophase.annotation.Experimental;
import dev.twophase.FaultInjector;
import dev.twophase.ProtocolPoint;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
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
   * Parses {@code POINT} or {@code POINT:HIT} (hit 1 if omitted) naming a {@link ProtocolPoint}; a
   * null or blank spec gives {@link FaultInjector#none()}. A participant's own points need
   * {@link #parse(String, Collection)}.
   *
   * @throws IllegalArgumentException if the hit is not a number >= 1, or the point is not a
   *     {@link ProtocolPoint} (the message lists them)
   */
  public static FaultInjector parse(String spec) {
    return parse(spec, List.of());
  }

  /**
   * As {@link #parse(String)}, the point a {@link ProtocolPoint} or one of {@code otherPoints} (the
   * participants' own points that the program can reach, such as the file participant's
   * {@code FilePoints}). A name that is neither is refused: it would never be reached, and the
   * program would run to its end without crashing.
   *
   * @throws IllegalArgumentException if the spec is malformed or its point is not known; the
   *     message lists the known points
   */
  public static FaultInjector parse(String spec, Collection<String> otherPoints) {
    Objects.requireNonNull(otherPoints, "otherPoints");
    if (spec == null || spec.isBlank()) {
      return FaultInjector.none();
    }
    String s = spec.trim();
    int colon = s.lastIndexOf(':');
    String point = colon < 0 ? s : s.substring(0, colon);
    long hit = 1;
    if (colon >= 0) {
      try {
        hit = Long.parseLong(s.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "crash spec '" + spec + "': expected POINT or POINT:HIT with HIT a number >= 1", e);
      }
    }
    if (hit < 1) {
      throw new IllegalArgumentException(
          "crash spec '" + spec + "': expected POINT or POINT:HIT with HIT a number >= 1, was " + hit);
    }
    Set<String> known = knownPoints(otherPoints);
    if (!known.contains(point)) {
      throw new IllegalArgumentException("crash spec '" + spec + "': no such point '" + point
          + "', so the program would never crash; known points: " + String.join(", ", known)
          + (otherPoints.isEmpty() ? " (pass a participant's own points to parse(spec, otherPoints))" : ""));
    }
    return haltAt(point, hit);
  }

  /** The {@link ProtocolPoint} names and {@code otherPoints}, sorted. */
  public static Set<String> knownPoints(Collection<String> otherPoints) {
    Set<String> known = new TreeSet<>();
    for (ProtocolPoint p : ProtocolPoint.values()) {
      known.add(p.name());
    }
    for (String p : otherPoints) {
      known.add(Objects.requireNonNull(p, "a point name"));
    }
    return known;
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
