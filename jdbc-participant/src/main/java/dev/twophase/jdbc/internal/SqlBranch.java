package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the SQL dialects' branches share: the connection, the state, and a release that never lets
 * a connection with an unfinished transaction go back to a pool.
 */
abstract class SqlBranch implements Branch {

  private static final Logger LOG = LoggerFactory.getLogger(SqlBranch.class);

  /** Where the branch is. */
  enum State { ACTIVE, PREPARED, FINISHED, RELEASED }

  final SqlDialect dialect;
  final String name;
  final Connection connection;
  final boolean autoCommitBefore;
  State state = State.ACTIVE;
  /** The session may hold something of this branch we could not finish: never reuse it. */
  boolean tainted;

  SqlBranch(SqlDialect dialect, String name, Connection connection, boolean autoCommitBefore) {
    this.dialect = dialect;
    this.name = name;
    this.connection = connection;
    this.autoCommitBefore = autoCommitBefore;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Connection connection() {
    return connection;
  }

  @Override
  public final boolean isPrepared() {
    return state == State.PREPARED;
  }

  final void requireState(State expected, String operation) {
    if (state != expected) {
      throw new IllegalStateException(
          dialect.product() + " transaction " + name + " is " + state + ", cannot " + operation
              + " (expected " + expected + ")");
    }
  }

  /**
   * Runs a step that changes the session's transaction state; on any failure (an {@link Error}
   * too) the session is tainted, so {@link #release()} closes it for good.
   */
  final <T> T step(SqlStep<T> step) throws SQLException {
    boolean ok = false;
    try {
      T result = step.run();
      ok = true;
      return result;
    } finally {
      if (!ok) {
        tainted = true;
      }
    }
  }

  /**
   * Commits the prepared transaction ({@code commit} true) or rolls it back, on this branch's
   * session; {@link Resolution#NOT_PREPARED} if the database proves it holds no prepared
   * transaction of this name.
   */
  abstract Resolution finishPrepared(boolean commit) throws SQLException;

  /** Rolls back the transaction before it was prepared. Default: {@link Connection#rollback()}. */
  void rollbackActive() throws SQLException {
    connection.rollback();
  }

  @Override
  public final Resolution commit() throws SQLException {
    requireState(State.PREPARED, "commit");
    Resolution r = step(() -> finishPrepared(true));
    state = State.FINISHED;
    return r;
  }

  @Override
  public final Resolution rollback() throws SQLException {
    if (state == State.ACTIVE) {
      step(() -> {
        rollbackActive();
        return null;
      });
      state = State.FINISHED;
      return Resolution.DONE;
    }
    requireState(State.PREPARED, "roll back");
    Resolution r = step(() -> finishPrepared(false));
    state = State.FINISHED;
    return r;
  }

  /** A step of the protocol on the session. */
  @FunctionalInterface
  interface SqlStep<T> {
    T run() throws SQLException;
  }

  @Override
  public final void release() {
    if (state == State.RELEASED) {
      return;
    }
    boolean reusable = state == State.FINISHED && !tainted;
    state = State.RELEASED;
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
      LOG.debug("{} transaction {}: resetting the connection before release failed; closing it",
          dialect.product(), name, e);
      try {
        connection.abort(Runnable::run);
      } catch (SQLException | RuntimeException again) {
        e.addSuppressed(again);
      }
    } finally {
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        LOG.debug("{} transaction {}: closing the connection failed", dialect.product(), name, e);
      }
    }
  }

  @Override
  public String toString() {
    return dialect.product() + " transaction " + name + " (" + state + ")";
  }
}
