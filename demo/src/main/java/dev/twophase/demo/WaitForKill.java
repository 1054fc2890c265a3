package dev.twophase.demo;

import dev.twophase.FaultInjector;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The job's {@link FaultInjector}: the {@code hit}-th time the coordinator or the state log
 * reaches {@code point},
 * it prints {@value #ANNOUNCEMENT}{@code POINT:HIT} on standard output and waits there for good.
 * The demo's parent reads the job's output and, on that line, kills the JVM with {@code SIGKILL}
 * ({@link Process#destroyForcibly()}), as {@code kill -9} would: no shutdown hook, no flush, no
 * close. The thread that reached the point never returns from it; the job's other threads (the
 * committer thread, the Kafka producers' I/O threads) run on until the signal lands.
 *
 * <p>This is how a user crash-tests an application of their own: pass an injector to {@code
 * CoordinatorConfig.Builder.faultInjector} (and {@code FileStateLog.Builder.faultInjector}) and
 * stop the process from outside.
 */
final class WaitForKill implements FaultInjector {

  /** What the job prints when it reached the point, followed by {@code POINT:HIT}. */
  static final String ANNOUNCEMENT = "crash point reached, waiting to be killed: ";

  private final String point;
  private final long hit;
  private final PrintStream out;
  private final AtomicLong hits = new AtomicLong();

  private WaitForKill(String point, long hit, PrintStream out) {
    this.point = point;
    this.hit = hit;
    this.out = out;
  }

  /** {@code POINT:HIT}, or {@code none} for the injector that does nothing. */
  static FaultInjector parse(String spec, PrintStream out) {
    if (spec == null || spec.isBlank() || spec.equalsIgnoreCase("none")) {
      return FaultInjector.none();
    }
    int colon = spec.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("crash spec '" + spec + "': expected POINT:HIT or none");
    }
    long hit = Long.parseLong(spec.substring(colon + 1).trim());
    if (hit < 1) {
      throw new IllegalArgumentException("crash spec '" + spec + "': the hit must be >= 1");
    }
    return new WaitForKill(spec.substring(0, colon).trim().toUpperCase(Locale.ROOT), hit, out);
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
    while (true) { // until SIGKILL; an interrupt must not let the protocol go on past the point
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException ignored) {
        // keep waiting
      }
    }
  }

  @Override
  public String toString() {
    return "WaitForKill{" + point + ":" + hit + "}";
  }
}
