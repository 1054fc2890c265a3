package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.DatabaseSetupException;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A branch of a raw-SQL dialect: its steps are the dialect's statements on a connection of the
 * user's {@code DataSource}, and its release never lets a connection with an unfinished
 * transaction go back to the pool.
 */
final class SqlBranch extends BranchTemplate {

  private static final Logger LOG = LoggerFactory.getLogger(SqlBranch.class);

  private final SqlDialect dialect;
  /** The connection's auto-commit mode as the pool handed it out, restored at release. */
  private final boolean autoCommitBefore;
  /**
   * Whether the transaction is the session's own, begun by turning auto-commit off (PostgreSQL,
   * H2): auto-commit on at the prepare then means its statements committed one by one.
   */
  private final boolean autoCommitOffAtStart;

  SqlBranch(SqlDialect dialect, String name, Connection connection, boolean autoCommitBefore,
      boolean autoCommitOffAtStart) {
    super(dialect.product(), name, connection);
    this.dialect = dialect;
    this.autoCommitBefore = autoCommitBefore;
    this.autoCommitOffAtStart = autoCommitOffAtStart;
  }

  @Override
  boolean prepareOnSession(String lastStatement) throws SQLException {
    if (autoCommitOffAtStart && connection.getAutoCommit()) {
      // With auto-commit on, every statement committed on its own, and PostgreSQL's PREPARE
      // TRANSACTION only warns "there is no transaction in progress": nothing would be prepared.
      throw new DatabaseSetupException(
          describe() + ": the connection was switched to auto-commit, so its statements committed "
              + "one by one and there is nothing to prepare; never call setAutoCommit(true) on a "
              + "participant's connection");
    }
    dialect.prepare(connection, lastStatement, name);
    return true;
  }

  @Override
  Resolution finishPrepared(boolean commit) throws SQLException {
    return dialect.finishOn(connection, name, commit);
  }

  @Override
  void rollbackActive() throws SQLException {
    dialect.rollbackActive(connection, name);
  }

  @Override
  void closeSession(boolean reusable) {
    try {
      if (reusable) {
        if (connection.getAutoCommit() != autoCommitBefore) {
          connection.setAutoCommit(autoCommitBefore);
        }
      } else {
        // A prepared or active transaction may still be bound to this session (MariaDB keeps a
        // prepared XA branch attached to it): a pool must never hand it to someone else. The
        // server rolls back an unprepared transaction of a closed session; a prepared one stays
        // prepared, for commitRecovered or the next start's clean-up.
        connection.abort(Runnable::run);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("{}: resetting the connection before release failed; closing it", describe(), e);
      try {
        connection.abort(Runnable::run);
      } catch (SQLException | RuntimeException again) {
        e.addSuppressed(again);
      }
    } finally {
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        LOG.debug("{}: closing the connection failed", describe(), e);
      }
    }
  }
}
