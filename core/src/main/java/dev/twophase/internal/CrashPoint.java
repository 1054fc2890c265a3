package dev.twophase.internal;

import dev.twophase.annotation.Internal;

/**
 * The named protocol points at which crash tests halt a JVM (SPEC.md, "Crash points every fault
 * test must cover"). See {@link Faults}.
 */
@Internal
public enum CrashPoint {
  /** Checkpoint started, no participant pre-committed yet. */
  BEFORE_PRE_COMMIT,
  /** After one participant's pre-commit, before the next one's. */
  BETWEEN_PRE_COMMITS,
  /** All pre-commits done (next transactions begun), decision not yet appended. */
  AFTER_PRE_COMMITS,
  /** Part of the decision record written to the log: a torn record. */
  DURING_LOG_APPEND,
  /** Decision durable, no commit yet. */
  AFTER_LOG_APPEND,
  /** After one participant's commit, before the next one's. */
  BETWEEN_COMMITS,
  /** Every commit of a checkpoint done, completion mark not yet written. */
  AFTER_COMMITS,
  /** Start-up recovery, after a recovered handle was committed. */
  DURING_RECOVERY_COMMIT,
  /** Log compaction, after part of the compacted segment was written. */
  DURING_COMPACTION
}
