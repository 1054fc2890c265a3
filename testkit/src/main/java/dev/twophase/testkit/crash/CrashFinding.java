package dev.twophase.testkit.crash;

import dev.twophase.annotation.Experimental;
import java.util.Objects;

/**
 * One thing a {@link CrashTest} found wrong, with the child JVM and the participant it concerns.
 *
 * @param kind what is wrong
 * @param child the number of the child JVM (1, 2, ...) whose run or report showed it
 * @param participant {@value CrashEnvironment#PARTICIPANT} (yours), {@value
 *     CrashEnvironment#WITNESS} (the harness's own participant, registered after yours), or empty
 *     if the finding is about the child JVM itself
 * @param message what was seen, and what it means
 */
@Experimental
public record CrashFinding(Kind kind, int child, String participant, String message) {

  /** What a finding is about. */
  public enum Kind {
    /**
     * Records that must be visible are not: right after a recovery, below the position the
     * application resumes at, or at the end. A commit that is not durable before it returns, a
     * {@code recoverAndCommit} that does not finish what a crash interrupted, or an
     * {@code ALREADY_COMMITTED} reported for a transaction not (fully) committed.
     */
    LOST,
    /** Records visible more than once: a commit or recovery that is not idempotent. */
    DUPLICATED,
    /**
     * Records visible right after a recovery at or beyond the position the application resumes at:
     * they belong to a checkpoint that was never decided, so recovery should have aborted them
     * (and the application will write them again).
     */
    BEYOND_POSITION,
    /**
     * What a reader saw right after a crash, before any recovery, is not a whole number of
     * transactions: a commit that publishes a transaction in steps that a crash can separate.
     */
    PARTIAL_COMMIT,
    /** Transactions of the test's coordinator still open or prepared in the resource at the end. */
    LEFT_OPEN,
    /** A committed record that {@link CrashSubject#record(long)} never produced for 0..N-1. */
    UNKNOWN_RECORD,
    /** A child JVM failed: an exception, or an exit status that is neither a crash nor success. */
    CHILD_FAILED,
    /** A child JVM did not end within the child timeout (its threads are attached). */
    CHILD_HUNG,
    /**
     * A child armed to crash ran to the end: the point was reached fewer times than the hit, so the
     * scenario proved nothing. Pick a hit within the counts reported.
     */
    CRASH_NOT_REACHED
  }

  /** Checks the fields. */
  public CrashFinding {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(participant, "participant");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return kind + " (child #" + child + (participant.isEmpty() ? "" : ", " + participant) + "): " + message;
  }
}
