package dev.twophase.jdbc.internal;

import dev.twophase.TransactionNames;
import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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
@Internal
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

  /** The columns the participant writes, as {@code docs/jdbc-participant.md} creates them. */
  public static final String EXPECTED_COLUMNS = "name VARCHAR(" + COLUMN_CHARS + ") NOT NULL PRIMARY KEY, "
      + "owner VARCHAR(" + COLUMN_CHARS + ") NOT NULL, epoch BIGINT NOT NULL";

  /** A column of the table, as an empty query's metadata shows it. */
  private record Column(String name, int type, String typeName, int precision, int scale) {

    boolean text() {
      return TEXT.contains(type);
    }

    @Override
    public String toString() {
      return name + ' ' + typeName + (text() && precision > 0 && precision < Integer.MAX_VALUE ? "(" + precision + ")" : "");
    }
  }

  /** The table's columns, from the metadata of an empty query (the same on every database). */
  private List<Column> columns(Connection c) throws SQLException {
    List<Column> columns = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        columns.add(new Column(md.getColumnName(i).toLowerCase(Locale.ROOT), md.getColumnType(i),
            md.getColumnTypeName(i), md.getPrecision(i), md.getScale(i)));
      }
    }
    return columns;
  }

  private static String found(List<Column> columns) {
    return " (columns found: " + String.join(", ", columns.stream().map(Column::toString).toList())
        + "; expected: " + EXPECTED_COLUMNS + ")";
  }

  /**
   * What is wrong with the table's columns, or null if the participant can write and read its
   * markers in it: {@code name} and {@code owner} text columns of at least {@value #COLUMN_CHARS}
   * characters, {@code epoch} a 64-bit integer. Other columns are left alone here (see
   * {@link #insertProblem}). Whatever case the database keeps names in.
   */
  public String shapeMismatch(Connection autoCommit) throws SQLException {
    List<Column> columns = columns(autoCommit);
    List<String> problems = new ArrayList<>();
    boolean name = false;
    boolean owner = false;
    boolean epoch = false;
    for (Column column : columns) {
      switch (column.name()) {
        case "name", "owner" -> {
          if (!column.text()) {
            problems.add(column.name() + " is not a text column");
          } else if (column.precision() > 0 && column.precision() < COLUMN_CHARS) {
            problems.add(column.name() + " holds " + column.precision() + " characters, fewer than " + COLUMN_CHARS);
          }
          if (column.name().equals("name")) {
            name = true;
          } else {
            owner = true;
          }
        }
        case "epoch" -> {
          epoch = true;
          int type = column.type();
          boolean wide = type == Types.BIGINT || ((type == Types.NUMERIC || type == Types.DECIMAL)
              && column.precision() >= 19 && column.scale() == 0);
          if (!wide) {
            problems.add("epoch is not a 64-bit integer column");
          }
        }
        default -> { }
      }
    }
    List<String> missing = new ArrayList<>();
    if (!name) {
      missing.add("no column name");
    }
    if (!owner) {
      missing.add("no column owner");
    }
    if (!epoch) {
      missing.add("no column epoch");
    }
    problems.addAll(0, missing);
    return problems.isEmpty() ? null : String.join(", ", problems) + found(columns);
  }

  /**
   * Why a marker row cannot be inserted, or null if it can: one is inserted in a transaction that
   * is rolled back, so that what the columns' types do not show (another {@code NOT NULL} column
   * without a default, a check constraint, a trigger, a missing {@code INSERT} grant) is found at
   * build, not at the first pre-commit.
   */
  public String insertProblem(Connection autoCommit) throws SQLException {
    autoCommit.setAutoCommit(false);
    try (Statement s = autoCommit.createStatement()) {
      s.executeUpdate(insertSql("~twophase-probe~", "~twophase-probe~", 0));
      return null;
    } catch (SQLException e) {
      return SqlErrors.describe(e) + found(columns(rollBack(autoCommit)));
    } finally {
      rollBack(autoCommit).setAutoCommit(true);
    }
  }

  private static Connection rollBack(Connection c) throws SQLException {
    c.rollback();
    return c;
  }

  private static final Set<Integer> TEXT = Set.of(Types.VARCHAR, Types.CHAR, Types.NVARCHAR, Types.NCHAR,
      Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB);

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

  /**
   * The name of the owner row of {@code prefix}: {@code <prefix>owner}, or {@code ~<h>~owner}
   * where that is too long ({@link TransactionNames#shorten}). A transaction's name ends in
   * {@code <epoch>-<sequence>}, so no marker ever has this name.
   */
  public static String ownerRowName(String prefix) {
    return TransactionNames.shorten(prefix, prefix + "owner", COLUMN_CHARS);
  }

  /**
   * Records {@code epoch} as the newest owner epoch of {@code owner}'s transactions in the owner
   * row {@code name}, unless a newer one is recorded; returns the epoch recorded afterwards (above
   * {@code epoch} if a newer owner claimed them). Atomic against concurrent claims: the row is
   * raised by a conditional update, or inserted, and an insert that loses a race retries the
   * update.
   */
  public long raiseOwnerEpoch(Connection autoCommit, String name, String owner, long epoch) throws SQLException {
    for (int attempt = 0; ; attempt++) {
      try (PreparedStatement s = autoCommit.prepareStatement(
          "UPDATE " + table + " SET epoch = ? WHERE name = ? AND epoch < ?")) {
        s.setLong(1, epoch);
        s.setString(2, name);
        s.setLong(3, epoch);
        if (s.executeUpdate() > 0) {
          return epoch;
        }
      }
      long recorded = ownerEpoch(autoCommit, name);
      if (recorded >= 0) {
        return Math.max(recorded, epoch);
      }
      try (PreparedStatement s = autoCommit.prepareStatement(this.insert)) {
        s.setString(1, name);
        s.setString(2, owner);
        s.setLong(3, epoch);
        s.executeUpdate();
        return epoch;
      } catch (SQLException e) {
        String state = e.getSQLState();
        if (attempt > 0 || state == null || !state.startsWith("23")) {
          throw e; // not a duplicate key of a racing claim
        }
      }
    }
  }

  /** The epoch the owner row {@code name} holds, or -1 if there is none. */
  public long ownerEpoch(Connection autoCommit, String name) throws SQLException {
    try (PreparedStatement s = autoCommit.prepareStatement("SELECT epoch FROM " + table + " WHERE name = ?")) {
      s.setString(1, name);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
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
