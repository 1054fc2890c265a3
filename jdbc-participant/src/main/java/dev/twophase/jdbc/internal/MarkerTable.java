package dev.twophase.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.regex.Pattern;

/**
 * The table of marker rows: one row per prepared transaction, inserted inside that transaction
 * right before it is prepared, so the row exists exactly when the transaction committed. When the
 * database no longer lists a transaction as prepared, the row decides: present means it committed
 * ({@code ALREADY_COMMITTED}), absent means it was rolled back ({@code LOST}).
 *
 * <p>Columns: {@code name} (the transaction's name in the database, the primary key), {@code owner}
 * (the participant's name prefix, to delete its own rows) and {@code epoch} (the coordinator
 * incarnation that wrote it). Rows are deleted once the coordinator retires their handles.
 */
public final class MarkerTable {

  /** The default table name. */
  public static final String DEFAULT_NAME = "twophase_markers";
  /** Width of the name and owner columns. */
  public static final int COLUMN_CHARS = 200;

  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

  private final String table;
  private final String insert;
  private final String exists;
  private final String delete;

  /** @param table a plain SQL name, optionally with a schema ({@code app.twophase_markers}) */
  public MarkerTable(String table) {
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "marker table name " + table + " must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*,"
              + " optionally schema.table)");
    }
    this.table = table;
    this.insert = "INSERT INTO " + table + " (name, owner, epoch) VALUES (?, ?, ?)";
    this.exists = "SELECT 1 FROM " + table + " WHERE name = ?";
    this.delete = "DELETE FROM " + table + " WHERE name = ?";
  }

  public String table() {
    return table;
  }

  /** Creates the table if it does not exist (PostgreSQL, MariaDB, MySQL and H2 all accept this). */
  public void createIfAbsent(Connection autoCommit) throws SQLException {
    try (Statement s = autoCommit.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + table + " (name VARCHAR(" + COLUMN_CHARS
          + ") NOT NULL PRIMARY KEY, owner VARCHAR(" + COLUMN_CHARS + ") NOT NULL, epoch BIGINT "
          + "NOT NULL)");
    }
  }

  /** Checks that the table can be read (for users who create it themselves). */
  public void check(Connection autoCommit) throws SQLException {
    try (PreparedStatement s = autoCommit.prepareStatement(exists)) {
      s.setString(1, "");
      s.executeQuery().close();
    }
  }

  /** Inserts the marker of {@code name} on the transaction's own connection. */
  public void insert(Connection transaction, String name, String owner, long epoch) throws SQLException {
    try (PreparedStatement s = transaction.prepareStatement(insert)) {
      s.setString(1, name);
      s.setString(2, owner);
      s.setLong(3, epoch);
      s.executeUpdate();
    }
  }

  /**
   * The insert of the marker of {@code name} as literal SQL, for dialects that send it together
   * with the prepare. The values are checked to be plain ({@code [A-Za-z0-9._~-]}), so no quoting
   * is needed.
   */
  public String insertSql(String name, String owner, long epoch) {
    BranchNames.requireSafe(name);
    BranchNames.requireSafe(owner);
    return "INSERT INTO " + table + " (name, owner, epoch) VALUES ('" + name + "', '" + owner
        + "', " + epoch + ")";
  }

  /** Whether the marker of {@code name} is committed. */
  public boolean exists(Connection autoCommit, String name) throws SQLException {
    try (PreparedStatement s = autoCommit.prepareStatement(exists)) {
      s.setString(1, name);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Deletes the markers of {@code names} in one batch; returns how many rows went. */
  public int delete(Connection autoCommit, Collection<String> names) throws SQLException {
    if (names.isEmpty()) {
      return 0;
    }
    int deleted = 0;
    try (PreparedStatement s = autoCommit.prepareStatement(delete)) {
      for (String n : names) {
        s.setString(1, n);
        s.addBatch();
      }
      for (int count : s.executeBatch()) {
        deleted += Math.max(count, 0);
      }
    }
    return deleted;
  }

  /** Deletes the markers {@code owner} wrote in incarnations before {@code epoch}. */
  public int deleteEarlierEpochs(Connection autoCommit, String owner, long epoch) throws SQLException {
    try (PreparedStatement s = autoCommit.prepareStatement(
        "DELETE FROM " + table + " WHERE owner = ? AND epoch < ?")) {
      s.setString(1, owner);
      s.setLong(2, epoch);
      return s.executeUpdate();
    }
  }
}
