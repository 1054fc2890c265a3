package dev.twophase.testkit.crash;

import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Experimental;
import java.util.Objects;
import java.util.Set;

/**
 * Where a child JVM of a {@link CrashTest} halts: the {@code hit}-th time, counted from the start
 * of that child JVM, that a named point is reached. The point is either one of the coordinator's
 * {@link ProtocolPoint}s or a point the participant under test names and calls through the
 * {@link dev.twophase.FaultInjector} it was given ({@link CrashEnvironment#faults()}).
 *
 * <p>The child halts as {@code kill -9} would ({@link dev.twophase.testing.CrashInjector}, exit
 * status 86): no shutdown hook runs, nothing is flushed or closed.
 *
 * @param point the name passed to {@link dev.twophase.FaultInjector#reached(String)}
 * @param hit the hit at which to halt, from 1
 */
@Experimental
public record Crash(String point, long hit) {

  /**
   * Protocol points that {@link dev.twophase.FileStateLog} reaches inside an append and a
   * compaction. After a child halted at one of them, the harness cuts the log as a power loss
   * could ({@link dev.twophase.testing.PowerLoss}) before the next child starts.
   */
  static final Set<String> LOG_POINTS =
      Set.of(ProtocolPoint.DURING_LOG_APPEND.name(), ProtocolPoint.DURING_COMPACTION.name());

  /**
   * Validates the point and the hit.
   *
   * @throws IllegalArgumentException if the point is blank or contains ':' or whitespace, or the hit
   *     is below 1
   */
  public Crash {
    Objects.requireNonNull(point, "point");
    if (point.isBlank() || point.contains(":") || !point.equals(point.strip()) || point.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("a crash point is a name without ':' or whitespace, was '" + point + "'");
    }
    if (hit < 1) {
      throw new IllegalArgumentException("the hit of crash point " + point + " must be >= 1, was " + hit);
    }
  }

  /** Halts at the {@code hit}-th time the coordinator reaches {@code point}. */
  public static Crash at(ProtocolPoint point, long hit) {
    return new Crash(point.name(), hit);
  }

  /** Halts at the {@code hit}-th time {@code point}, a participant's own point, is reached. */
  public static Crash at(String point, long hit) {
    return new Crash(point, hit);
  }

  /**
   * Parses {@code POINT:HIT} (or {@code POINT}, hit 1), the form {@link #toString()} gives.
   *
   * @throws IllegalArgumentException if the text is not of that form
   */
  public static Crash parse(String text) {
    String s = Objects.requireNonNull(text, "text").strip();
    int colon = s.lastIndexOf(':');
    if (colon < 0) {
      return new Crash(s, 1);
    }
    try {
      return new Crash(s.substring(0, colon), Long.parseLong(s.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("a crash is POINT or POINT:HIT with HIT a number >= 1, was '" + text + "'", e);
    }
  }

  /** {@code POINT:HIT}. */
  @Override
  public String toString() {
    return point + ":" + hit;
  }
}
