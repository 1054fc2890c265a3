package dev.twophase.demo;

import dev.twophase.internal.CrashPoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Which JVM crashes where: one {@link Crash} per crashing JVM, in order; a last JVM always runs
 * without one. Parsed from {@code --crash-at}:
 *
 * <ul>
 *   <li>{@code POINT} or {@code POINT:HIT}, e.g. {@code AFTER_LOG_APPEND:10}: the first JVM halts the
 *       HIT-th time it reaches the point (default: in the middle of the run);
 *   <li>a comma-separated list, one per JVM, e.g. {@code AFTER_LOG_APPEND,DURING_RECOVERY_COMMIT:1};
 *   <li>{@code random}: a random point and hit (reproducible with {@code --seed});
 *   <li>{@code none}: no crash, one JVM.
 * </ul>
 */
record CrashPlan(List<Crash> crashes, String origin) {

  /** Points reached while a job runs from a fresh state log. */
  static final List<CrashPoint> IN_RUN = List.of(
      CrashPoint.BEFORE_PRE_COMMIT,
      CrashPoint.BETWEEN_PRE_COMMITS,
      CrashPoint.AFTER_PRE_COMMITS,
      CrashPoint.DURING_LOG_APPEND,
      CrashPoint.AFTER_LOG_APPEND,
      CrashPoint.BETWEEN_COMMITS,
      CrashPoint.AFTER_COMMITS);

  /** State log segment size that makes compaction happen every few checkpoints. */
  static final long SMALL_SEGMENT_BYTES = 4096;

  /** A JVM armed with {@code -Dtwophase.crashAt=point:hit}. */
  record Crash(CrashPoint point, long hit) {

    String property() {
      return point + ":" + hit;
    }

    /** The checkpoint the crash lands in, for a JVM that starts on a fresh state log. */
    long checkpoint() {
      // Each checkpoint reaches each point once; the log's first append is the initial record.
      return point == CrashPoint.DURING_LOG_APPEND ? hit - 1 : hit;
    }

    /** What the crash means in the protocol, for a JVM that starts on a fresh state log. */
    String meaning(boolean freshLog) {
      if (!freshLog && point != CrashPoint.DURING_RECOVERY_COMMIT && point != CrashPoint.DURING_COMPACTION) {
        return "the " + ordinal(hit) + " time this JVM reaches " + point;
      }
      long n = checkpoint();
      return switch (point) {
        case BEFORE_PRE_COMMIT -> "checkpoint " + n + " has started, nothing pre-committed: its records are "
            + "only in in-progress files (partly still in memory); undecided";
        case BETWEEN_PRE_COMMITS -> "the orders sink pre-committed checkpoint " + n + ", the ledger sink "
            + "not yet; undecided";
        case AFTER_PRE_COMMITS -> "both sinks pre-committed checkpoint " + n + " (flushed, fsynced, still "
            + "invisible) and began the next transactions; the decision is not logged yet: undecided";
        case DURING_LOG_APPEND -> n == 0
            ? "half of the initial state record is written (a torn record); nothing decided yet"
            : "half of checkpoint " + n + "'s decision record is written to the state log (a torn "
                + "record); undecided";
        case AFTER_LOG_APPEND -> "checkpoint " + n + "'s decision is durable in the state log, nothing of "
            + "it committed yet: decided, invisible";
        case BETWEEN_COMMITS -> "the orders sink committed checkpoint " + n + ", the ledger sink not yet: "
            + "decided, visible in one sink only";
        case AFTER_COMMITS -> "both sinks committed checkpoint " + n + ", its completion mark is not "
            + "written: decided, visible";
        case DURING_RECOVERY_COMMIT -> "start-up recovery, after it committed the " + ordinal(hit)
            + " recovered transaction";
        case DURING_COMPACTION -> "the " + ordinal(hit) + " compaction of the state log, its new "
            + "segment half written";
      };
    }
  }

  /** Number of checkpoints a complete run takes: one per {@code every} records, and finish()'s. */
  static long checkpoints(long records, int every) {
    return records / every + 1;
  }

  static CrashPlan parse(String spec, long records, int every, long seed) {
    long checkpoints = checkpoints(records, every);
    long middle = Math.max(1, checkpoints / 2);
    String s = spec.trim();
    if (s.equalsIgnoreCase("none")) {
      return new CrashPlan(List.of(), "no crash");
    }
    if (s.equalsIgnoreCase("random")) {
      Random random = new Random(seed);
      CrashPoint point = IN_RUN.get(random.nextInt(IN_RUN.size()));
      // A checkpoint with records before and after it: not the first, nor finish()'s.
      long hit = checkpoints <= 2 ? 1 : 2 + random.nextInt((int) Math.min(Integer.MAX_VALUE, checkpoints - 2));
      if (point == CrashPoint.DURING_LOG_APPEND) {
        hit++; // checkpoint hit, not the initial record
      }
      return new CrashPlan(List.of(new Crash(point, hit)), "random, seed " + seed);
    }
    List<Crash> crashes = new ArrayList<>();
    for (String part : s.split(",")) {
      String p = part.trim();
      int colon = p.indexOf(':');
      String name = (colon < 0 ? p : p.substring(0, colon)).trim().toUpperCase(Locale.ROOT);
      CrashPoint point;
      try {
        point = CrashPoint.valueOf(name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--crash-at: unknown crash point '" + name + "'; one of "
            + List.of(CrashPoint.values()) + ", 'random' or 'none'");
      }
      long hit;
      if (colon >= 0) {
        try {
          hit = Long.parseLong(p.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("--crash-at: hit count of '" + p + "' is not a number");
        }
        if (hit < 1) {
          throw new IllegalArgumentException("--crash-at: hit count of '" + p + "' must be >= 1");
        }
      } else {
        hit = switch (point) {
          case DURING_LOG_APPEND -> middle + 1;
          case DURING_RECOVERY_COMMIT -> 1;
          case DURING_COMPACTION -> 2;
          default -> middle;
        };
      }
      if (crashes.isEmpty() && point == CrashPoint.DURING_RECOVERY_COMMIT) {
        // A fresh log has nothing to recover: first leave something decided and uncommitted.
        crashes.add(new Crash(CrashPoint.AFTER_LOG_APPEND, middle));
      }
      crashes.add(new Crash(point, hit));
    }
    return new CrashPlan(List.copyOf(crashes), "--crash-at " + spec);
  }

  boolean compacts() {
    return crashes.stream().anyMatch(c -> c.point() == CrashPoint.DURING_COMPACTION);
  }

  private static String ordinal(long n) {
    long mod100 = n % 100;
    String suffix = mod100 >= 11 && mod100 <= 13 ? "th"
        : switch ((int) (n % 10)) {
          case 1 -> "st";
          case 2 -> "nd";
          case 3 -> "rd";
          default -> "th";
        };
    return n + suffix;
  }
}
