package dev.twophase.jdbc.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the raw-SQL dialects share: their connections come from the user's {@link DataSource}; a
 * branch starts on a connection of its own, which is never handed back to the pool if starting
 * fails; statements that finish a prepared transaction from outside its session, and the listing
 * of prepared transactions, run on a connection in auto-commit mode. Each dialect supplies only
 * its SQL: how to start, prepare, finish and list a transaction.
 */
abstract class SqlDialect extends DialectTemplate<Connection> {

  final DataSource dataSource;

  SqlDialect(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Starts the transaction {@code name} on a new session. Default: turns auto-commit off, so the
   * transaction is the session's own (the prepare then refuses a session switched back to
   * auto-commit).
   */
  void start(Connection c, String name) throws SQLException {
    c.setAutoCommit(false);
  }

  /** Runs {@code lastStatement} in the transaction {@code name}, then prepares it, on {@code c}. */
  abstract void prepare(Connection c, String lastStatement, String name) throws SQLException;

  /** Rolls back the unprepared transaction {@code name} on its session. Default: {@link Connection#rollback()}. */
  void rollbackActive(Connection c, String name) throws SQLException {
    c.rollback();
  }

  /** The statement that commits ({@code commit} true) or rolls back the prepared {@code name}. */
  abstract String finishSql(String name, boolean commit);

  /** The query that lists the prepared transactions, one a row. */
  abstract String listSql();

  /**
   * The transaction name of a row of {@link #listSql()}, or null for a transaction that is not
   * this participant's. Default: the first column.
   */
  String listedName(ResultSet row) throws SQLException {
    return row.getString(1);
  }

  /**
   * A new branch on a connection of its own. If starting fails (an {@link Error} too), the
   * connection is aborted, so that a pool never hands out a session in an unknown state.
   */
  @Override
  public final Branch begin(String name) throws SQLException {
    requireName(name);
    Connection c = dataSource.getConnection();
    boolean ok = false;
    try {
      boolean autoCommitBefore = c.getAutoCommit();
      start(c, name);
      Branch branch = new SqlBranch(this, name, c, autoCommitBefore, !c.getAutoCommit());
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

  @Override
  final <T> T onNewSession(SessionWork<Connection, T> work) throws SQLException {
    try (Connection c = autoCommitConnection()) {
      return work.run(c);
    }
  }

  @Override
  final void runFinish(Connection c, String name, boolean commit) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(finishSql(name, commit));
    }
  }

  @Override
  final List<String> listPrepared(Connection c) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(listSql())) {
      while (rs.next()) {
        String name = listedName(rs);
        if (name != null) {
          names.add(name);
        }
      }
    }
    return names;
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
