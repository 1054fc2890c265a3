package dev.twophase.internal.engine;

import dev.twophase.annotation.Internal;

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
    boolean continueAfterLostDecision) {}
