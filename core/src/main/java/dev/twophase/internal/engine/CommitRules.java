package dev.twophase.internal.engine;

import dev.twophase.annotation.Internal;
import java.time.Duration;

/**
 * What the outcomes of commits and recoveries mean, as the user configured them.
 *
 * @param ignoreFailuresAfterTimeout a decided transaction older than its timeout that can no
 *     longer be committed is dropped with an ERROR, not an error (as Flink's option of that name)
 * @param timeoutWarningRatio warn when a transaction being committed is older than this fraction
 *     of its timeout; negative for never
 * @param continueAfterUnknownCommitOutcome a commit whose outcome the participant cannot tell is
 *     taken as done, with an ERROR, instead of stopping
 * @param continueAfterLostDecision a transaction found committed that no decision covers is kept,
 *     with an ERROR, instead of stopping the start-up
 */
@Internal
public record CommitRules(
    boolean ignoreFailuresAfterTimeout,
    double timeoutWarningRatio,
    boolean continueAfterUnknownCommitOutcome,
    boolean continueAfterLostDecision) {

  /**
   * Whether a transaction of this age that cannot be committed is dropped rather than an error.
   *
   * @param timeout the participant's effective timeout, or null if none applies
   */
  public boolean ignorable(Duration timeout, Duration age) {
    return ignoreFailuresAfterTimeout && timeout != null && age.compareTo(timeout) >= 0;
  }

  /**
   * What most likely lost a transaction of this age, and what to do about it.
   *
   * @param timeout the participant's effective timeout, or null if none applies
   */
  public static String whyLost(Duration timeout, Duration age) {
    String notDurable = "so it did not expire: the participant's preCommit or commit was probably not "
        + "durable (a database with delayed writes, such as H2 without WRITE_DELAY=0, PostgreSQL "
        + "with synchronous_commit=off, MySQL with innodb_flush_log_at_trx_commit=0), or the "
        + "resource was changed by hand. Make pre-commits and commits durable before they return";
    if (timeout == null) {
      return "No transaction timeout applies to it (age " + age.toMillis() + " ms), " + notDurable;
    }
    if (age.compareTo(timeout) < 0) {
      return "It is younger than its timeout (age " + age.toMillis() + " ms, timeout "
          + timeout.toMillis() + " ms), " + notDurable;
    }
    return "It is older than its timeout (age " + age.toMillis() + " ms, timeout "
        + timeout.toMillis() + " ms): the resource probably expired it. Raise the resource's "
        + "transaction timeout or checkpoint more often; to drop such transactions instead, enable "
        + "ignoreFailuresAfterTransactionTimeout";
  }
}
