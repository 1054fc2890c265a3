package dev.twophase.demo;

import dev.twophase.ProtocolPoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Which JVM is killed where: one {@link Crash} per JVM that is killed, in order; a last JVM always
 * runs without one. Parsed from {@code --crash-at}:
 *
 * <ul>
 *   <li>{@code POINT} or {@code POINT:HIT}, e.g. {@code AFTER_LOG_APPEND:10}: the first JVM is
 *       killed the HIT-th time it reaches the point (default: in the middle of the run);
 *   <li>a comma-separated list, one per JVM, e.g. {@code AFTER_LOG_APPEND,DURING_RECOVERY_COMMIT:1};
 *   <li>{@code random}: a random point and hit (reproducible with {@code --seed});
 *   <li>{@code none}: no crash, one JVM.
 * </ul>
 *
 * <p>The points are the {@link ProtocolPoint}s, which the coordinator and the state log report to
 * the job's fault injector. The job's four sinks are pre-committed and committed in the order
 * {@link DemoJob#SINKS}, so {@code BETWEEN_PRE_COMMITS} and {@code BETWEEN_COMMITS} are reached
 * three times per checkpoint (after the first sink, the second, the third), the others once;
 * {@code DURING_RECOVERY_COMMIT} once per transaction that recovery commits; {@code
 * DURING_LOG_APPEND} once per synced append, the first of which is the start-up record (so
 * checkpoint n's decision is hit n + 1); {@code DURING_COMPACTION} once per compaction of the
 * state log.
 */
record CrashPlan(List<Crash> crashes, String origin) {

  /** Points reached while a job runs from a fresh state log: those {@code random} picks from. */
  static final List<ProtocolPoint> IN_RUN = List.of(
      ProtocolPoint.BEFORE_PRE_COMMIT,
      ProtocolPoint.BETWEEN_PRE_COMMITS,
      ProtocolPoint.AFTER_PRE_COMMITS,
      ProtocolPoint.DURING_LOG_APPEND,
      ProtocolPoint.AFTER_LOG_APPEND,
      ProtocolPoint.BETWEEN_COMMITS,
      ProtocolPoint.AFTER_COMMITS);

  /** State log segment size that makes compaction happen every few checkpoints. */
  static final long SMALL_SEGMENT_BYTES = 4096;

  /** Hits of a BETWEEN_* point per checkpoint: one between each two sinks. */
  static final int PAIRS = DemoJob.SINKS.size() - 1;

  /** The JVM is killed the {@code hit}-th time it reaches {@code point}. */
  record Crash(ProtocolPoint point, long hit) {

    /** {@code POINT:HIT}, as the job's fault injector takes it. */
    String spec() {
      return point + ":" + hit;
    }

    private boolean between() {
      return point == ProtocolPoint.BETWEEN_PRE_COMMITS || point == ProtocolPoint.BETWEEN_COMMITS;
    }

    /** The checkpoint the crash lands in, for a JVM that starts on a fresh state log. */
    long checkpoint() {
      if (point == ProtocolPoint.DURING_LOG_APPEND) {
        return hit - 1; // the first synced append is the start-up record
      }
      return between() ? (hit - 1) / PAIRS + 1 : hit;
    }

    /** A kill inside a state log write, after which the demo tears the log as a power loss could. */
    boolean inLogWrite() {
      return point == ProtocolPoint.DURING_LOG_APPEND || point == ProtocolPoint.DURING_COMPACTION;
    }

    /** For a BETWEEN_* point: how many sinks are done (pre-committed or committed) at the crash. */
    int sinksDone() {
      return between() ? (int) ((hit - 1) % PAIRS) + 1 : 0;
    }

    /** What the crash means in the protocol, for a JVM that starts on a fresh state log or not. */
    String meaning(boolean freshLog) {
      if (!freshLog && point != ProtocolPoint.DURING_RECOVERY_COMMIT && point != ProtocolPoint.DURING_COMPACTION) {
        return "the " + ordinal(hit) + " time this JVM reaches " + point;
      }
      long n = checkpoint();
      List<String> done = DemoJob.SINKS.subList(0, sinksDone());
      List<String> notYet = DemoJob.SINKS.subList(sinksDone(), DemoJob.SINKS.size());
      return switch (point) {
        case BEFORE_PRE_COMMIT -> "checkpoint " + n + " has started, nothing pre-committed: its records are "
            + "in in-progress files, an open database transaction and an open Kafka transaction "
            + "(partly still in memory); undecided";
        case BETWEEN_PRE_COMMITS -> String.join(", ", done) + " pre-committed checkpoint " + n + ", "
            + String.join(", ", notYet) + " not yet; undecided";
        case AFTER_PRE_COMMITS -> "all four sinks pre-committed checkpoint " + n + " (files fsynced, the "
            + "database transaction prepared, the Kafka transaction flushed; all invisible) and began the "
            + "next transactions; the decision is not logged yet: undecided";
        case DURING_LOG_APPEND -> n == 0
            ? "the start-up record is written to the state log, not yet synced; then the log is cut "
                + "inside it, as a power loss could leave it: nothing decided"
            : "checkpoint " + n + "'s decision record is written to the state log, not yet synced; "
                + "then the log is cut inside it, as a power loss could leave it (a torn record): undecided";
        case AFTER_LOG_APPEND -> "checkpoint " + n + "'s decision is durable in the state log, nothing of "
            + "it committed yet: decided, invisible";
        case BETWEEN_COMMITS -> String.join(", ", done) + " committed checkpoint " + n + ", "
            + String.join(", ", notYet) + " not yet: decided, visible in " + done.size() + " of "
            + DemoJob.SINKS.size() + " sinks";
        case AFTER_COMMITS -> "all four sinks committed checkpoint " + n + ", its completion mark is not "
            + "written: decided, visible";
        case DURING_RECOVERY_COMMIT -> "start-up recovery, after it committed the " + ordinal(hit)
            + " recovered transaction";
        case DURING_COMPACTION -> "the " + ordinal(hit) + " compaction of the state log, its new segment "
            + "written, not yet synced; then that segment is cut, as a power loss could leave it";
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
      ProtocolPoint point = IN_RUN.get(random.nextInt(IN_RUN.size()));
      // A checkpoint with records before and after it: not the first, nor finish()'s.
      long checkpoint = checkpoints <= 2 ? 1 : 2 + random.nextInt((int) Math.min(Integer.MAX_VALUE, checkpoints - 2));
      long hit = checkpoint;
      if (point == ProtocolPoint.BETWEEN_PRE_COMMITS || point == ProtocolPoint.BETWEEN_COMMITS) {
        hit = (checkpoint - 1) * PAIRS + 1 + random.nextInt(PAIRS);
      } else if (point == ProtocolPoint.DURING_LOG_APPEND) {
        hit = checkpoint + 1; // checkpoint's decision, not the start-up record
      }
      return new CrashPlan(List.of(new Crash(point, hit)), "random, seed " + seed);
    }
    List<Crash> crashes = new ArrayList<>();
    for (String part : s.split(",")) {
      String p = part.trim();
      int colon = p.indexOf(':');
      String name = (colon < 0 ? p : p.substring(0, colon)).trim().toUpperCase(Locale.ROOT);
      ProtocolPoint point;
      try {
        point = ProtocolPoint.valueOf(name);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--crash-at: unknown crash point '" + name + "'; one of "
            + List.of(ProtocolPoint.values()) + ", 'random' or 'none'");
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
          // In the middle checkpoint, between the file sinks and the others.
          case BETWEEN_PRE_COMMITS, BETWEEN_COMMITS -> (middle - 1) * PAIRS + 2;
          case DURING_LOG_APPEND -> middle + 1;
          case DURING_RECOVERY_COMMIT -> 1;
          case DURING_COMPACTION -> 2;
          default -> middle;
        };
      }
      if (crashes.isEmpty() && point == ProtocolPoint.DURING_RECOVERY_COMMIT) {
        // A fresh log has nothing to recover: first leave something decided and uncommitted.
        crashes.add(new Crash(ProtocolPoint.AFTER_LOG_APPEND, middle));
      }
      crashes.add(new Crash(point, hit));
    }
    return new CrashPlan(List.copyOf(crashes), "--crash-at " + spec);
  }

  boolean compacts() {
    return crashes.stream().anyMatch(c -> c.point() == ProtocolPoint.DURING_COMPACTION);
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
