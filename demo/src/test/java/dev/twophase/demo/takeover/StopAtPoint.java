package dev.twophase.demo.takeover;

import dev.twophase.FaultInjector;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The job's fault injector, as the demo's: the {@code hit}-th time the coordinator or the state
 * log reaches {@code point}, it prints {@value #ANNOUNCEMENT}{@code POINT:HIT} and parks the thread
 * for good, for the parent to kill the JVM with {@code SIGKILL}. With the spec {@code
 * pause:POINT:HIT} it prints {@value #PAUSED}{@code POINT:HIT} instead and waits there until the
 * file {@value #RESUME} appears in the job's local directory.
 */
final class StopAtPoint implements FaultInjector {

  static final String ANNOUNCEMENT = "crash point reached, waiting to be killed: ";
  static final String PAUSED = "paused at ";
  static final String RESUME = "resume";

  private final String point;
  private final long hit;
  private final PrintStream out;
  /** Null: wait to be killed. */
  private final Path resumeFile;
  private final AtomicLong hits = new AtomicLong();

  private StopAtPoint(String point, long hit, PrintStream out, Path resumeFile) {
    this.point = point;
    this.hit = hit;
    this.out = out;
    this.resumeFile = resumeFile;
  }

  /** {@code POINT:HIT}, {@code pause:POINT:HIT}, or {@code none}. */
  static FaultInjector parse(String spec, Path local, PrintStream out) {
    if (spec == null || spec.isBlank() || spec.equalsIgnoreCase("none")) {
      return FaultInjector.none();
    }
    boolean pause = spec.startsWith("pause:");
    String s = pause ? spec.substring("pause:".length()) : spec;
    int colon = s.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("crash spec '" + spec + "': expected [pause:]POINT:HIT or none");
    }
    return new StopAtPoint(s.substring(0, colon).trim().toUpperCase(Locale.ROOT),
        Long.parseLong(s.substring(colon + 1).trim()), out, pause ? local.resolve(RESUME) : null);
  }

  @Override
  public void reached(String reached) {
    if (!point.equals(reached) || hits.incrementAndGet() != hit) {
      return;
    }
    synchronized (out) {
      out.println((resumeFile == null ? ANNOUNCEMENT : PAUSED) + point + ":" + hit);
      out.flush();
    }
    if (resumeFile != null) {
      while (!Files.exists(resumeFile)) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          // keep waiting for the file
        }
      }
      return;
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
