package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
  void prepare(Connection c, String lastStatement, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      // One round trip: pgjdbc sends both statements of a simple query together, and stops at
      // the first error.
      s.execute(lastStatement + "; PREPARE TRANSACTION " + BranchNames.quoted(name));
    }
    // PREPARE TRANSACTION in a transaction that an error aborted rolls back instead and answers
    // ROLLBACK, not an error. The caller's statement right before (the marker row) succeeded,
    // which proves the transaction was not aborted. The session holds no transaction any more:
    // auto-commit keeps pgjdbc from opening one, in which COMMIT PREPARED could not run.
    c.setAutoCommit(true);
  }

  @Override
  String finishSql(String name, boolean commit) {
    return (commit ? "COMMIT PREPARED " : "ROLLBACK PREPARED ") + BranchNames.quoted(name);
  }

  /** undefined_object: PostgreSQL knows no prepared transaction of that gid, in any session. */
  @Override
  boolean isUnknownTransaction(SQLException e) {
    return UNDEFINED_OBJECT.equals(e.getSQLState());
  }

  @Override
  String listSql() {
    return "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()";
  }
}
