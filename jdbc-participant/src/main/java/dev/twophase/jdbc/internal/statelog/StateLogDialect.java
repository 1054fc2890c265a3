package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * What the state log's table needs of one kind of database: its column types, and the settings
 * and table properties without which a committed append would not be durable or not fit. The SQL
 * of the log's statements is the same on every database ({@link StateLogTable}).
 */
@Internal
public abstract class StateLogDialect {

  /** The database's name for messages, e.g. {@code PostgreSQL}. */
  public abstract String product();

  /**
   * The type of the {@code coordinator_id} column: text of {@code chars} characters, compared
   * exactly (case, trailing spaces).
   */
  abstract String idType(int chars);

  /** The type of the {@code holder} column. */
  String textType(int chars) {
    return "VARCHAR(" + chars + ")";
  }

  /** The type of the {@code payload} column, holding at least {@code StateLog.MAX_STATE_BYTES}. */
  abstract String payloadType();

  /** What follows the column list of {@code CREATE TABLE} (MariaDB: the engine). */
  String tableOptions() {
    return "";
  }

  /**
   * Checks the server's settings once, at open: throws {@link
   * dev.twophase.jdbc.DatabaseSetupException} naming the setting and the fix.
   */
  abstract void checkServer(Connection c) throws SQLException;

  /**
   * Checks a session the writer is about to use (a setting a session may change): throws {@link
   * dev.twophase.jdbc.DatabaseSetupException}. Default: nothing to check.
   */
  void checkSession(Connection c) throws SQLException {}

  /**
   * What is wrong with the table that its columns' metadata does not show (its engine, the
   * collation of its key), or an empty list.
   */
  List<String> tableProblems(Connection c, StateLogTable table) throws SQLException {
    return List.of();
  }

  /** Whether {@code e} says a row with that key already exists. */
  boolean isDuplicateKey(SQLException e) {
    String state = e.getSQLState();
    return state != null && state.startsWith("23");
  }

  /**
   * The dialect of the database {@code c} is connected to.
   *
   * @throws IllegalArgumentException for a database the state log does not support
   */
  public static StateLogDialect detect(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    String product = md.getDatabaseProductName();
    String version = md.getDatabaseProductVersion();
    String p = product.toLowerCase(Locale.ROOT);
    if (p.contains("postgresql")) {
      return new PostgresStateLogDialect();
    }
    if (p.contains("mariadb") || version.toLowerCase(Locale.ROOT).contains("mariadb")) {
      return new MariaDbStateLogDialect("MariaDB");
    }
    if (p.contains("mysql")) {
      return new MariaDbStateLogDialect("MySQL");
    }
    if (p.equals("h2")) {
      return new H2StateLogDialect();
    }
    throw new IllegalArgumentException("the JDBC state log does not support " + product + " "
        + version + " (supported: PostgreSQL, MariaDB, MySQL, H2); use FileStateLog or another "
        + "database");
  }
}
