package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * PostgreSQL: {@code PREPARE TRANSACTION 'gid'}, {@code COMMIT PREPARED}, {@code ROLLBACK
 * PREPARED}, {@code pg_prepared_xacts}. A prepared transaction no longer belongs to the session
 * that prepared it, so any session can finish it; the branch still commits on its own session to
 * save a pool checkout.
 */
@Internal
public final class PostgresDialect extends SqlDialect {

  /** {@code GIDSIZE} is 200 bytes with the terminating zero. */
  static final int MAX_GID_BYTES = 199;
  /** undefined_object: {@code prepared transaction with identifier "..." does not exist}. */
  static final String UNDEFINED_OBJECT = "42704";

  public PostgresDialect(DataSource dataSource) {
    super(dataSource);
  }

  @Override
  public String product() {
    return "PostgreSQL";
  }

  @Override
  public int maxNameBytes() {
    return MAX_GID_BYTES;
  }

  @Override
  public void checkServer() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW max_prepared_transactions")) {
      rs.next();
      int max = Integer.parseInt(rs.getString(1).trim());
      if (max <= 0) {
        throw new DatabaseSetupException(
            "PostgreSQL has max_prepared_transactions = " + max + ": prepared transactions are "
                + "disabled, so every PREPARE TRANSACTION would fail (SQLSTATE 55000). Set "
                + "max_prepared_transactions in postgresql.conf to at least the number of "
                + "transactions that can be prepared at once (per coordinator: its pending "
                + "checkpoints plus one) and restart the server");
      }
    }
  }

  @Override
  public Branch begin(String name) throws SQLException {
    BranchNames.requireSafe(name);
    return begin((c, autoCommitBefore) -> {
      c.setAutoCommit(false);
      return new PgBranch(this, name, c, autoCommitBefore);
    });
  }

  @Override
  public Resolution commitRecovered(String name) throws SQLException {
    return finish("COMMIT PREPARED ", name);
  }

  @Override
  public Resolution rollbackRecovered(String name) throws SQLException {
    return finish("ROLLBACK PREPARED ", name);
  }

  @Override
  Resolution finishOn(Connection c, String command, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(command + BranchNames.quoted(name));
      return Resolution.DONE;
    } catch (SQLException e) {
      if (UNDEFINED_OBJECT.equals(e.getSQLState())) {
        return Resolution.NOT_PREPARED; // PostgreSQL lists nothing of that gid, in any session
      }
      throw e;
    }
  }

  @Override
  List<String> listPrepared(Connection c) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(
            "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()");
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static final class PgBranch extends SqlBranch {

    PgBranch(SqlDialect dialect, String name, Connection connection, boolean autoCommitBefore) {
      super(dialect, name, connection, autoCommitBefore);
    }

    @Override
    public void prepare(String lastStatement) throws SQLException {
      requireState(State.ACTIVE, "prepare");
      step(() -> {
        if (connection.getAutoCommit()) {
          // With auto-commit on, every statement committed on its own and PREPARE TRANSACTION
          // only warns "there is no transaction in progress": nothing would be prepared.
          throw new DatabaseSetupException(
              "PostgreSQL transaction " + name + ": the connection was switched to auto-commit, so "
                  + "its statements committed one by one and there is nothing to prepare; never "
                  + "call setAutoCommit(true) on a participant's connection");
        }
        try (Statement s = connection.createStatement()) {
          // One round trip: pgjdbc sends both statements of a simple query together, and stops at
          // the first error.
          s.execute(lastStatement + "; PREPARE TRANSACTION " + BranchNames.quoted(name));
        }
        // PREPARE TRANSACTION in a transaction that an error aborted rolls back instead and
        // answers ROLLBACK, not an error. The caller's statement right before (the marker row)
        // succeeded, which proves the transaction was not aborted.
        connection.setAutoCommit(true);
        state = State.PREPARED;
        return null;
      });
    }

    @Override
    Resolution finishPrepared(boolean commit) throws SQLException {
      return dialect.finishOn(connection, commit ? "COMMIT PREPARED " : "ROLLBACK PREPARED ", name);
    }
  }
}
