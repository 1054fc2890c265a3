package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import dev.twophase.jdbc.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What opening the log does to the database, on one connection in auto-commit mode: checks the
 * server's settings, creates the table if asked and it is absent, checks its shape, and reads or
 * creates the log's id.
 */
@Internal
public final class TableSetup {

  /** The outcome: the database's dialect, the checked table, the log's id. */
  public record Opened(StateLogDialect dialect, StateLogTable table, String logId) {}

  private TableSetup() {}

  /**
   * Prepares the table on {@code c} (auto-commit on) and returns what the log needs of it.
   *
   * @throws DatabaseSetupException if a setting makes appends not durable or too small, or the
   *     table is missing (not created) or of another shape; the message names the table or the
   *     setting and the fix
   * @throws dev.twophase.StateLogCorruptedException if the log id row is damaged or missing
   */
  public static Opened open(Connection c, String tableName, boolean create) throws SQLException {
    StateLogDialect dialect = StateLogDialect.detect(c);
    StateLogTable table = new StateLogTable(tableName, dialect);
    dialect.checkServer(c);
    if (create) {
      try {
        table.createIfAbsent(c);
      } catch (SQLException e) {
        // Two processes creating it at once: PostgreSQL may refuse the loser (a duplicate type
        // name). If the table is there now, the check below decides.
        if (!readable(c, table)) {
          throw new DatabaseSetupException(where(dialect, table) + " cannot be created ("
              + SqlErrors.describe(e) + "). Create it as docs/state-log-jdbc.md shows, or grant "
              + "the log's user CREATE", e);
        }
      }
    }
    String mismatch;
    try {
      mismatch = table.shapeMismatch(c);
    } catch (SQLException e) {
      throw new DatabaseSetupException(where(dialect, table) + " cannot be read ("
          + SqlErrors.describe(e) + "). Create it as docs/state-log-jdbc.md shows"
          + (create ? "" : " (or build the log with createTable(true))")
          + " and grant the log's user SELECT, INSERT and UPDATE on it", e);
    }
    if (mismatch != null) {
      throw new DatabaseSetupException(where(dialect, table) + " is not a state log table: "
          + mismatch + ". Give the log a table of its own with JdbcStateLog.Builder#table(name), "
          + "or drop this one if it holds nothing (the log creates it as expected)");
    }
    return new Opened(dialect, table, LogIdRow.readOrCreate(c, table, dialect.product()));
  }

  private static boolean readable(Connection c, StateLogTable table) {
    try {
      table.shapeMismatch(c);
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  static String where(StateLogDialect dialect, StateLogTable table) {
    return "state log table " + table.name() + " on " + dialect.product();
  }
}
