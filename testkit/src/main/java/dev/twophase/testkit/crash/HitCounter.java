package dev.twophase.testkit.crash;

import dev.twophase.FaultInjector;
import dev.twophase.testing.CrashInjector;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fault injector of a child JVM: counts every point reached, by name, and halts the JVM at the
 * scenario's crash through a {@link CrashInjector}, after printing {@link #MARKER} so that the
 * test JVM can tell the planned crash from any other exit. Calls are serialised, so that the
 * count printed is the hit that halts even if two threads reach the point at once.
 */
final class HitCounter implements FaultInjector {

  /** Printed on stdout, followed by {@code POINT:HIT}, right before the planned halt. */
  static final String MARKER = "twophase-crashtest: halting at ";

  private final Crash crash;
  private final FaultInjector halt;
  private final Map<String, Long> hits = new TreeMap<>();

  /** Counts points, and halts at {@code crash} unless it is null. */
  HitCounter(Crash crash) {
    this.crash = crash;
    this.halt = crash == null ? FaultInjector.none() : CrashInjector.haltAt(crash.point(), crash.hit());
  }

  @Override
  public synchronized void reached(String point) {
    long hit = hits.merge(point, 1L, Long::sum);
    if (crash != null && crash.point().equals(point) && hit == crash.hit()) {
      System.out.println(MARKER + point + ":" + hit);
      System.out.flush();
    }
    halt.reached(point);
  }

  /** How often each point was reached so far. */
  synchronized Map<String, Long> hits() {
    return new TreeMap<>(hits);
  }

  @Override
  public String toString() {
    return "HitCounter{" + (crash == null ? "no crash" : "halt at " + crash) + "}";
  }
}
