package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;

/**
 * What a {@link FileStateLog} has done since it was opened: an immutable snapshot of its counters,
 * from {@link FileStateLog#stats()}. Counts never decrease while the log is open; take the
 * difference of two snapshots ({@link #minus}) for an interval.
 *
 * <p>For example, how well appends of concurrent coordinators share syncs (group commit):
 *
 * <pre>{@code
 * StateLogStats before = log.stats();
 * ... // appends
 * double perSync = log.stats().minus(before).appendsPerSync();
 * }</pre>
 *
 * <p>Reading {@link FileStateLog#stats()} takes no lock; each count is read atomically, but the
 * snapshot as a whole is not (an append in progress may be counted in one field and not yet in
 * another).
 */
@PublicEvolving
public final class StateLogStats {

  private static final StateLogStats EMPTY = new StateLogStats(0, 0, 0, 0, 0, 0, 0);

  private final long stateAppends;
  private final long completionMarks;
  private final long appendedBytes;
  private final long syncs;
  private final long compactions;
  private final long standbyTakeovers;
  private final long standbyTakeoversDuringSync;

  private StateLogStats(long stateAppends, long completionMarks, long appendedBytes, long syncs,
      long compactions, long standbyTakeovers, long standbyTakeoversDuringSync) {
    this.stateAppends = stateAppends;
    this.completionMarks = completionMarks;
    this.appendedBytes = appendedBytes;
    this.syncs = syncs;
    this.compactions = compactions;
    this.standbyTakeovers = standbyTakeovers;
    this.standbyTakeoversDuringSync = standbyTakeoversDuringSync;
  }

  /**
   * Statistics with the given counts, in the order of the accessors.
   *
   * @throws IllegalArgumentException if a count is negative, or more takeovers happened during
   *     syncs than in all
   */
  public static StateLogStats of(long stateAppends, long completionMarks, long appendedBytes,
      long syncs, long compactions, long standbyTakeovers, long standbyTakeoversDuringSync) {
    requireNonNegative(stateAppends, "stateAppends");
    requireNonNegative(completionMarks, "completionMarks");
    requireNonNegative(appendedBytes, "appendedBytes");
    requireNonNegative(syncs, "syncs");
    requireNonNegative(compactions, "compactions");
    requireNonNegative(standbyTakeovers, "standbyTakeovers");
    requireNonNegative(standbyTakeoversDuringSync, "standbyTakeoversDuringSync");
    if (standbyTakeoversDuringSync > standbyTakeovers) {
      throw new IllegalArgumentException("standbyTakeoversDuringSync (" + standbyTakeoversDuringSync
          + ") must not exceed standbyTakeovers (" + standbyTakeovers + ")");
    }
    return new StateLogStats(stateAppends, completionMarks, appendedBytes, syncs, compactions,
        standbyTakeovers, standbyTakeoversDuringSync);
  }

  /** All counts zero. */
  public static StateLogStats empty() {
    return EMPTY;
  }

  private static void requireNonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0, was " + value);
    }
  }

  /**
   * STATE records appended ({@link StateLog.CoordinatorLog#appendState}), counted when the record
   * is handed to the file, before the sync that makes it durable has returned; an append that
   * fails in its sync is counted too.
   */
  public long stateAppends() {
    return stateAppends;
  }

  /**
   * Completion marks written ({@link StateLog.CoordinatorLog#appendCompletion} calls that raised a
   * coordinator's mark; the others write nothing and are not counted).
   */
  public long completionMarks() {
    return completionMarks;
  }

  /** Bytes of the records counted by {@link #stateAppends()} and {@link #completionMarks()}. */
  public long appendedBytes() {
    return appendedBytes;
  }

  /**
   * Data syncs ({@code fdatasync}) of segment files: the syncs that make appends durable (one per
   * group of concurrent appends), and those of opening, rolling and closing the log.
   */
  public long syncs() {
    return syncs;
  }

  /**
   * {@link #stateAppends()} per {@link #syncs()}: how many durable appends shared a sync (group
   * commit); 1 or a little below for a lone appender (opening, rolling and closing sync too), up
   * to the number of concurrent appenders. 0 if there was no sync.
   */
  public double appendsPerSync() {
    return syncs == 0 ? 0.0 : (double) stateAppends / syncs;
  }

  /** Rolls to a new segment holding only the live state, automatic and by {@link FileStateLog#compact()}. */
  public long compactions() {
    return compactions;
  }

  /**
   * Times an interrupt closed the file channel of a thread blocked in a write, truncate or sync,
   * and the log carried on on the segment's standby descriptor (each is also logged at WARN). Not
   * zero means some code interrupts threads that append or checkpoint.
   */
  public long standbyTakeovers() {
    return standbyTakeovers;
  }

  /** Of {@link #standbyTakeovers()}, those of an interrupt during a sync. */
  public long standbyTakeoversDuringSync() {
    return standbyTakeoversDuringSync;
  }

  /**
   * The counts of this snapshot less those of {@code earlier} (each at least 0): what happened
   * between the two.
   */
  public StateLogStats minus(StateLogStats earlier) {
    Objects.requireNonNull(earlier, "earlier");
    long takeovers = Math.max(0, standbyTakeovers - earlier.standbyTakeovers);
    return new StateLogStats(
        Math.max(0, stateAppends - earlier.stateAppends),
        Math.max(0, completionMarks - earlier.completionMarks),
        Math.max(0, appendedBytes - earlier.appendedBytes),
        Math.max(0, syncs - earlier.syncs),
        Math.max(0, compactions - earlier.compactions),
        takeovers,
        Math.min(takeovers,
            Math.max(0, standbyTakeoversDuringSync - earlier.standbyTakeoversDuringSync)));
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof StateLogStats s)) {
      return false;
    }
    return stateAppends == s.stateAppends
        && completionMarks == s.completionMarks
        && appendedBytes == s.appendedBytes
        && syncs == s.syncs
        && compactions == s.compactions
        && standbyTakeovers == s.standbyTakeovers
        && standbyTakeoversDuringSync == s.standbyTakeoversDuringSync;
  }

  @Override
  public int hashCode() {
    return Objects.hash(stateAppends, completionMarks, appendedBytes, syncs, compactions,
        standbyTakeovers, standbyTakeoversDuringSync);
  }

  @Override
  public String toString() {
    return "StateLogStats{stateAppends=" + stateAppends
        + ", completionMarks=" + completionMarks
        + ", appendedBytes=" + appendedBytes
        + ", syncs=" + syncs
        + ", appendsPerSync=" + String.format(java.util.Locale.ROOT, "%.2f", appendsPerSync())
        + ", compactions=" + compactions
        + ", standbyTakeovers=" + standbyTakeovers
        + ", standbyTakeoversDuringSync=" + standbyTakeoversDuringSync
        + "}";
  }
}
