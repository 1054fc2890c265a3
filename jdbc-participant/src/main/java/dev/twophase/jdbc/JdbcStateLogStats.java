package dev.twophase.jdbc;

import dev.twophase.annotation.PublicEvolving;
import java.util.Locale;

/**
 * What a {@link JdbcStateLog} has done since it was built: an immutable snapshot of its counters,
 * from {@link JdbcStateLog#stats()}. Counts never decrease while the log is open; take the
 * difference of two snapshots ({@link #minus}) for an interval. For example, how many appends of
 * concurrent coordinators shared a database transaction (group commit):
 *
 * <pre>{@code
 * JdbcStateLogStats before = log.stats();
 * ... // appends
 * double perTransaction = log.stats().minus(before).appendsPerTransaction();
 * }</pre>
 *
 * <p>Each count is read atomically, the snapshot as a whole is not.
 *
 * @param stateAppends states committed ({@code appendState} calls that returned normally)
 * @param completionMarks completion marks written (each raise of a coordinator's mark that its
 *     writer sent, in the transaction of a batch or of a release)
 * @param appendedBytes payload bytes of {@link #stateAppends()}
 * @param transactions database transactions the writer committed, each holding a batch of
 *     appends, marks and releases
 * @param claims coordinators claimed ({@code open} calls that returned)
 * @param fencedAppends appends refused because another owner had claimed the coordinator
 * @param failedTransactions transactions of the writer that failed (their appends' outcome is
 *     unknown)
 */
@PublicEvolving
public record JdbcStateLogStats(long stateAppends, long completionMarks, long appendedBytes,
    long transactions, long claims, long fencedAppends, long failedTransactions) {

  /**
   * Statistics with the given counts.
   *
   * @throws IllegalArgumentException if a count is negative
   */
  public JdbcStateLogStats {
    long[] counts = {stateAppends, completionMarks, appendedBytes, transactions, claims,
        fencedAppends, failedTransactions};
    for (long count : counts) {
      if (count < 0) {
        throw new IllegalArgumentException("counts must be >= 0, was " + count);
      }
    }
  }

  /**
   * {@link #stateAppends()} per {@link #transactions()}: how many durable appends shared a
   * database commit; about 1 for a lone appender, up to the number of concurrent coordinators. 0
   * if there was no transaction.
   */
  public double appendsPerTransaction() {
    return transactions == 0 ? 0.0 : (double) stateAppends / transactions;
  }

  /** The counts of this snapshot less those of {@code earlier} (each at least 0). */
  public JdbcStateLogStats minus(JdbcStateLogStats earlier) {
    return new JdbcStateLogStats(
        Math.max(0, stateAppends - earlier.stateAppends),
        Math.max(0, completionMarks - earlier.completionMarks),
        Math.max(0, appendedBytes - earlier.appendedBytes),
        Math.max(0, transactions - earlier.transactions),
        Math.max(0, claims - earlier.claims),
        Math.max(0, fencedAppends - earlier.fencedAppends),
        Math.max(0, failedTransactions - earlier.failedTransactions));
  }

  @Override
  public String toString() {
    return "JdbcStateLogStats{stateAppends=" + stateAppends + ", completionMarks="
        + completionMarks + ", appendedBytes=" + appendedBytes + ", transactions=" + transactions
        + ", appendsPerTransaction="
        + String.format(Locale.ROOT, "%.2f", appendsPerTransaction()) + ", claims=" + claims
        + ", fencedAppends=" + fencedAppends + ", failedTransactions=" + failedTransactions + "}";
  }
}
