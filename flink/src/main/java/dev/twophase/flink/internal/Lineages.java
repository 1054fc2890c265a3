package dev.twophase.flink.internal;

import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lineage ids and owner epochs of writer incarnations, the two parts of a transaction name that
 * make it unique: {@code <sinkId>-<participant>-<lineage>-<epoch>-<sequence>}.
 *
 * <ul>
 *   <li>A <b>lineage</b> is carried in the writer state: a restored subtask continues the lineage of
 *       the first state it receives. A subtask that receives none starts the lineage
 *       {@code c<restored checkpoint>s<subtask>} ({@code c0s<subtask>} without a restored
 *       checkpoint): deterministic, so that an attempt that failed before its first checkpoint is
 *       followed by one that finds and aborts its leftovers, and new for every restored checkpoint,
 *       so that it is never held by two live subtasks (a lineage created after restoring checkpoint
 *       n appears only in checkpoints after n).
 *   <li>An <b>epoch</b> is new for every attempt: above the restored epochs, and made from the
 *       clock's milliseconds, the attempt number and a random part, so that two attempts of the same
 *       lineage (a zombie and its successor, or two runs restored from one savepoint) never share a
 *       name.
 * </ul>
 */
final class Lineages {

  private static final long SUB_MILLI = 1_000_000;
  /** The last epoch handed out in this JVM: epochs never repeat within a JVM. */
  private static final AtomicLong LAST_EPOCH = new AtomicLong();

  private Lineages() {}

  /** The lineage a subtask starts when it received no writer state. */
  static String fresh(long restoredCheckpointId, int subtask) {
    return "c" + restoredCheckpointId + "s" + subtask;
  }

  /**
   * An epoch above {@code above}: {@code millis * 10^6 + (attempt mod 1000) * 1000 + random(1000)},
   * unique in this JVM. Two attempts of one subtask in one job differ in their attempt numbers; two
   * JVMs share an epoch only if they read the same millisecond, attempt number and random number.
   */
  static long newEpoch(long above, int attemptNumber, Clock clock) {
    long fromClock = Math.multiplyExact(Math.max(1, clock.millis()), SUB_MILLI)
        + Math.floorMod(attemptNumber, 1000) * 1000L
        + ThreadLocalRandom.current().nextLong(1000);
    long candidate = Math.max(Math.addExact(above, 1), fromClock);
    return LAST_EPOCH.accumulateAndGet(candidate, (last, c) -> Math.max(last + 1, c));
  }
}
