package dev.twophase.internal.log;

import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.crash.ChildJvm;
import dev.twophase.testing.CrashInjector;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM for state log tests (not a test itself). Usage: {@code LogChildMain MODE DIR}.
 *
 * <ul>
 *   <li>{@code open}: opens the log and closes it (what it logs is the test's subject).
 *   <li>{@code lock}: tries to open the log; prints {@code OPENED <epoch>} and exits 0, or prints
 *       {@code FENCED <message>} and exits {@value #FENCED}.
 *   <li>{@code append}: appends STATE records 1..5 for coordinator "a" (payload "state-N"), with a
 *       completion mark after each but the last; run it with {@code -Dtwophase.crashAt=...}.
 *   <li>{@code compact}: with segmentBytes 4096, appends for coordinators c0..c5 a STATE (id 10,
 *       payload "c<i>-10") and a completion (id 9), then compacts; run it with
 *       {@code -Dtwophase.crashAt=DURING_COMPACTION}; run again on the log it left, it opens it
 *       (sealing the segment the roll left unsealed) and does the same.
 * </ul>
 *
 * <p>The logs get a {@link CrashInjector} for the point named by {@code -Dtwophase.crashAt}
 * ({@code POINT} or {@code POINT:n}), through {@link FileStateLog.Builder#faultInjector}.
 */
public final class LogChildMain {

  public static final int FENCED = 3;

  private LogChildMain() {}

  public static void main(String[] args) {
    String mode = args[0];
    Path dir = Path.of(args[1]);
    FaultInjector faults = CrashInjector.parse(System.getProperty(ChildJvm.CRASH_AT));
    switch (mode) {
      case "open" -> FileStateLog.open(dir).close();
      case "lock" -> {
        try (FileStateLog log = FileStateLog.open(dir)) {
          System.out.println("OPENED " + log.ownerEpoch());
        } catch (FencedException e) {
          System.out.println("FENCED " + e.getMessage());
          System.exit(FENCED);
        }
      }
      case "append" -> {
        try (FileStateLog log = FileStateLog.builder(dir).faultInjector(faults).build();
            StateLog.CoordinatorLog a = log.open("a")) {
          for (int i = 1; i <= 5; i++) {
            a.appendState(i, ("state-" + i).getBytes(StandardCharsets.UTF_8));
            if (i < 5) {
              a.appendCompletion(i);
            }
          }
        }
      }
      case "compact" -> {
        try (FileStateLog log =
            FileStateLog.builder(dir).segmentBytes(4096).faultInjector(faults).build()) {
          for (int i = 0; i < 6; i++) {
            StateLog.CoordinatorLog c = log.open("c" + i);
            c.appendState(10, ("c" + i + "-10").getBytes(StandardCharsets.UTF_8));
            c.appendCompletion(9);
          }
          log.compact();
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
    System.out.println("DONE");
  }
}
