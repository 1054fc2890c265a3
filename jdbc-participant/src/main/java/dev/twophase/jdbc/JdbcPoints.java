package dev.twophase.jdbc;

import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * The named points at which a {@link JdbcParticipant} calls its
 * {@link JdbcParticipantBuilder#faultInjector(dev.twophase.FaultInjector) fault injector}, in the
 * order a transaction reaches them. A crash test halts a JVM at one of them (with the core's
 * {@code CrashInjector}) and recovers in a new one. None of them is on the per-record path.
 */
@Experimental
public final class JdbcPoints {

  private JdbcPoints() {}

  /** The transaction's rows are written; its marker row and {@code PREPARE} not yet sent. */
  public static final String BEFORE_PREPARE = "jdbc.preCommit.beforePrepare";

  /** The database prepared the transaction; the handle not yet returned. */
  public static final String AFTER_PREPARE = "jdbc.preCommit.afterPrepare";

  /** Right before the prepared transaction is committed. */
  public static final String BEFORE_COMMIT = "jdbc.commit.beforeCommitPrepared";

  /** The database committed the prepared transaction; the outcome not yet returned. */
  public static final String AFTER_COMMIT = "jdbc.commit.afterCommitPrepared";

  /** Every point, in the order a transaction reaches them; for {@code CrashInjector.parse}. */
  public static List<String> all() {
    return List.of(BEFORE_PREPARE, AFTER_PREPARE, BEFORE_COMMIT, AFTER_COMMIT);
  }
}
