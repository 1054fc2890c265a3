package dev.twophase.flink;

import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * The named points at which a {@link TwoPhaseSink}'s writers and committers call their
 * {@link TwoPhaseSink.Builder#faultInjector fault injector}, in the order a checkpoint reaches
 * them. They are the coordinators' {@link ProtocolPoint}s where the sink takes the same step (the
 * same names, so one crash harness reaches both); Flink's own checkpoint takes the place of the
 * state log, so there is no log append. A crash test halts a task manager at one of them and
 * recovers from the job's last completed checkpoint in a new one. None of them is on the
 * per-record path.
 */
@Experimental
public final class FlinkPoints {

  private FlinkPoints() {}

  /** The writer is asked for its committable (right before a checkpoint barrier); no pre-commit yet. */
  public static final String BEFORE_PRE_COMMIT = ProtocolPoint.BEFORE_PRE_COMMIT.name();

  /** After one participant's pre-commit, before the next one's. */
  public static final String BETWEEN_PRE_COMMITS = ProtocolPoint.BETWEEN_PRE_COMMITS.name();

  /**
   * Every participant pre-committed and the next transactions are begun; the committable is not
   * yet handed to Flink, so the checkpoint cannot complete with it.
   */
  public static final String AFTER_PRE_COMMITS = ProtocolPoint.AFTER_PRE_COMMITS.name();

  /** The committer committed one participant's handle of a committable, before the next one's. */
  public static final String BETWEEN_COMMITS = ProtocolPoint.BETWEEN_COMMITS.name();

  /** The committer committed every handle of a committable; Flink not yet told. */
  public static final String AFTER_COMMITS = ProtocolPoint.AFTER_COMMITS.name();

  /**
   * A restored writer committed one pending handle of its lineage (after each one, the last
   * included): hit n is after the n-th.
   */
  public static final String DURING_RECOVERY_COMMIT = ProtocolPoint.DURING_RECOVERY_COMMIT.name();

  /** Every point, in the order a checkpoint reaches them; for {@code CrashInjector.parse}. */
  public static List<String> all() {
    return List.of(BEFORE_PRE_COMMIT, BETWEEN_PRE_COMMITS, AFTER_PRE_COMMITS, BETWEEN_COMMITS, AFTER_COMMITS,
        DURING_RECOVERY_COMMIT);
  }
}
