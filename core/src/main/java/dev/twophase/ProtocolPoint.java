package dev.twophase;

import dev.twophase.annotation.Experimental;

/**
 * The named points of the protocol at which the coordinator and {@link FileStateLog} call their
 * {@link FaultInjector}, in the order one checkpoint reaches them. A crash test halts a JVM at one
 * of them and recovers in a new one; {@link #name()} is the string the injector receives.
 */
@Experimental
public enum ProtocolPoint {
  /** A checkpoint started; no participant pre-committed yet. Once per checkpoint. */
  BEFORE_PRE_COMMIT,
  /** After one participant's pre-commit, before the next one's. Once per pair of participants. */
  BETWEEN_PRE_COMMITS,
  /** Every participant pre-committed and the next transactions are begun; decision not logged. */
  AFTER_PRE_COMMITS,
  /**
   * Inside a {@link FileStateLog} append: the bytes of the records staged so far are in the
   * segment file, not yet synced. Reached once per write, which may carry the records of several
   * coordinators (group commit), and also for the start-up record each coordinator appends. A
   * crash here leaves the record whole (the page cache survives a killed process); a test that cuts
   * the file inside the last record models a power loss in the middle of the append.
   */
  DURING_LOG_APPEND,
  /** The decision of a checkpoint is durable; no commit yet. Once per checkpoint. */
  AFTER_LOG_APPEND,
  /** After one participant's commit, before the next one's. */
  BETWEEN_COMMITS,
  /** Every commit of a checkpoint done; its completion mark not yet written. */
  AFTER_COMMITS,
  /** Start-up recovery, right after a recovered handle was committed. Once per handle. */
  DURING_RECOVERY_COMMIT,
  /**
   * {@link FileStateLog} compaction: the new segment holding the live state is written, not yet
   * synced, and the older segments are still there.
   */
  DURING_COMPACTION
}
