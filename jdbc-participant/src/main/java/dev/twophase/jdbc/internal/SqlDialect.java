package dev.twophase.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the raw-SQL dialects share: their connections come from the user's {@link DataSource}; a
 * branch starts on a connection of its own, which is never handed back to the pool if starting
 * fails; statements that finish a prepared transaction from outside its session, and the listing
 * of prepared transactions, run on a connection in auto-commit mode. Each dialect supplies the SQL.
 */
abstract class SqlDialect implements Dialect {

  /** Starts the database's transaction on {@code connection} and wraps it in a branch. */
  @FunctionalInterface
  interface BranchStart {
    Branch start(Connection connection, boolean autoCommitBefore) throws SQLException;
  }

  final DataSource dataSource;

  SqlDialect(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * A new branch on a connection of its own. If starting fails (an {@link Error} too), the
   * connection is aborted, so that a pool never hands out a session in an unknown state.
   */
  final Branch begin(BranchStart start) throws SQLException {
    Connection c = dataSource.getConnection();
    boolean ok = false;
    try {
      Branch branch = start.start(c, c.getAutoCommit());
      ok = true;
      return branch;
    } finally {
      if (!ok) {
        try {
          c.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
          // closed next in any case
        }
        c.close();
      }
    }
  }

  /**
   * Finishes the prepared transaction {@code name} from a new session: {@code command} is the
   * statement's start, the name follows.
   */
  final Resolution finish(String command, String name) throws SQLException {
    try (Connection c = autoCommitConnection()) {
      return finishOn(c, command, name);
    }
  }

  /** Runs {@code command} for {@code name} on {@code c}, and says what the database proved. */
  abstract Resolution finishOn(Connection c, String command, String name) throws SQLException;

  /** The names of the prepared transactions the database lists, read on {@code c}. */
  abstract List<String> listPrepared(Connection c) throws SQLException;

  @Override
  public final List<String> preparedNames() throws SQLException {
    try (Connection c = autoCommitConnection()) {
      return listPrepared(c);
    }
  }

  @Override
  public final Connection autoCommitConnection() throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      c.setAutoCommit(true);
      return c;
    } catch (SQLException | RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }
}
