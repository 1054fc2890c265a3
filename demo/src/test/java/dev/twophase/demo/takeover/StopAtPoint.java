package dev.twophase.demo.takeover;

import dev.twophase.FaultInjector;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The job's fault injector, as the demo's: the {@code hit}-th time the coordinator or the state
 * log reaches {@code point}, it prints {@value #ANNOUNCEMENT}{@code POINT:HIT} and parks the thread
 * for good, for the parent to kill the JVM with {@code SIGKILL}.
 */
final class StopAtPoint implements FaultInjector {

  static final String ANNOUNCEMENT = "crash point reached, waiting to be killed: ";

  private final String point;
  private final long hit;
  private final PrintStream out;
  private final AtomicLong hits = new AtomicLong();

  private StopAtPoint(String point, long hit, PrintStream out) {
    this.point = point;
    this.hit = hit;
    this.out = out;
  }

  /** {@code POINT:HIT}, or {@code none}. */
  static FaultInjector parse(String spec, PrintStream out) {
    if (spec == null || spec.isBlank() || spec.equalsIgnoreCase("none")) {
      return FaultInjector.none();
    }
    int colon = spec.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("crash spec '" + spec + "': expected POINT:HIT or none");
    }
    return new StopAtPoint(spec.substring(0, colon).trim().toUpperCase(Locale.ROOT),
        Long.parseLong(spec.substring(colon + 1).trim()), out);
  }

  @Override
  public void reached(String reached) {
    if (!point.equals(reached) || hits.incrementAndGet() != hit) {
      return;
    }
    synchronized (out) {
      out.println(ANNOUNCEMENT + point + ":" + hit);
      out.flush();
    }
    while (true) { // until SIGKILL
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        // keep waiting: the protocol must not go on past the point
      }
    }
  }
}
