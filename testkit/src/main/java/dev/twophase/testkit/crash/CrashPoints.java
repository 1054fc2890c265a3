package dev.twophase.testkit.crash;

import dev.twophase.FaultInjector;
import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Experimental;
import dev.twophase.testing.CrashInjector;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Crash specs ({@code POINT} or {@code POINT:HIT}) checked against the points that exist, for child
 * programs that read one from a system property. {@link CrashInjector#parse} takes any name, so a
 * mistyped point would never be reached and the child would run to its end without crashing; this
 * refuses a name that is neither a {@link ProtocolPoint} nor one of the points the caller names,
 * and lists the known ones.
 *
 * <p>The testkit does not depend on the participant modules: pass their points yourself, e.g.
 * {@code CrashPoints.parse(spec, FilePoints.COMMIT_AFTER_RENAME, KafkaParticipant.AFTER_FLUSH)}.
 */
@Experimental
public final class CrashPoints {

  private CrashPoints() {}

  /**
   * A {@link CrashInjector} for {@code spec}, or {@link FaultInjector#none()} if it is null or blank.
   *
   * @param participantPoints the participants' own point names that the program can reach, besides
   *     the {@link ProtocolPoint}s
   * @throws IllegalArgumentException if the spec is malformed (see {@link Crash#parse}) or its point
   *     is not known; the message lists the known points
   */
  public static FaultInjector parse(String spec, String... participantPoints) {
    return parse(spec, Arrays.asList(participantPoints));
  }

  /** As {@link #parse(String, String...)}. */
  public static FaultInjector parse(String spec, Collection<String> participantPoints) {
    Objects.requireNonNull(participantPoints, "participantPoints");
    if (spec == null || spec.isBlank()) {
      return FaultInjector.none();
    }
    Crash crash = Crash.parse(spec);
    Set<String> known = known(participantPoints);
    if (!known.contains(crash.point())) {
      throw new IllegalArgumentException("crash spec '" + spec + "': no such point '" + crash.point()
          + "', so the program would never crash; known points: " + String.join(", ", known)
          + " (pass a participant's own points to CrashPoints.parse)");
    }
    return CrashInjector.haltAt(crash.point(), crash.hit());
  }

  /** The {@link ProtocolPoint} names and {@code participantPoints}, sorted. */
  public static Set<String> known(Collection<String> participantPoints) {
    Set<String> known = new TreeSet<>();
    for (ProtocolPoint p : ProtocolPoint.values()) {
      known.add(p.name());
    }
    for (String p : participantPoints) {
      known.add(Objects.requireNonNull(p, "a participant point"));
    }
    return known;
  }
}
