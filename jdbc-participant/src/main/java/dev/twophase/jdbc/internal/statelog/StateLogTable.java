package dev.twophase.jdbc.internal.statelog;

import dev.twophase.StateLog;
import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The state log's table: its name, its columns, the statements of the log. One row per
 * coordinator, plus the row of the log's id (the empty coordinator id, which no coordinator can
 * have):
 *
 * <ul>
 *   <li>{@code coordinator_id} (the key, up to {@value #ID_CHARS} characters),
 *   <li>{@code epoch}: the owner epoch of the last claim, only rises,
 *   <li>{@code holder}: the owner's name, NULL once released; {@code claimed_at_ms}: when it
 *       claimed (milliseconds since the epoch, by the claimer's clock),
 *   <li>{@code checkpoint_id}, {@code state_epoch}, {@code payload}, {@code checksum}: the last
 *       state, the epoch that wrote it, and the CRC32C of the four ({@link RowChecksum}),
 *   <li>{@code completed}: the highest completion mark.
 * </ul>
 */
@Internal
public final class StateLogTable {

  /** The default table name. */
  public static final String DEFAULT_NAME = "twophase_state_log";
  /** Width of {@code coordinator_id} and {@code holder}. */
  public static final int ID_CHARS = 255;

  private static final Pattern NAME =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

  private static final String COLUMNS =
      "epoch, holder, claimed_at_ms, checkpoint_id, state_epoch, payload, checksum, completed";

  private final String table;
  private final StateLogDialect dialect;

  final String selectForUpdate;
  final String selectRow;
  final String insertBlank;
  final String claim;
  final String appendState;
  final String appendCompletion;
  final String release;
  final String holderOf;
  final String insertLogId;
  final String countCoordinators;

  /**
   * @throws IllegalArgumentException if {@code table} is not a plain SQL name, optionally with a
   *     schema ({@code app.twophase_state_log})
   */
  public StateLogTable(String table, StateLogDialect dialect) {
    this.table = requireName(table);
    this.dialect = dialect;
    this.selectRow = "SELECT " + COLUMNS + " FROM " + table + " WHERE coordinator_id = ?";
    this.selectForUpdate = selectRow + " FOR UPDATE";
    this.insertBlank = "INSERT INTO " + table + " (coordinator_id, epoch, completed) VALUES (?, 0, 0)";
    this.claim = "UPDATE " + table + " SET epoch = ?, holder = ?, claimed_at_ms = ? "
        + "WHERE coordinator_id = ? AND epoch = ?";
    this.appendState = "UPDATE " + table + " SET checkpoint_id = ?, state_epoch = ?, payload = ?, "
        + "checksum = ? WHERE coordinator_id = ? AND epoch = ?";
    this.appendCompletion = "UPDATE " + table + " SET completed = GREATEST(completed, ?) "
        + "WHERE coordinator_id = ? AND epoch = ?";
    this.release = "UPDATE " + table + " SET holder = NULL, completed = GREATEST(completed, ?) "
        + "WHERE coordinator_id = ? AND epoch = ?";
    this.holderOf = "SELECT epoch, holder FROM " + table + " WHERE coordinator_id = ?";
    this.insertLogId = "INSERT INTO " + table + " (coordinator_id, epoch, checkpoint_id, "
        + "state_epoch, payload, checksum, completed) VALUES (?, 0, 0, 0, ?, ?, 0)";
    this.countCoordinators = "SELECT COUNT(*) FROM " + table + " WHERE coordinator_id <> ?";
  }

  /** Checks a table name: a plain identifier, optionally {@code schema.table}. */
  public static String requireName(String table) {
    if (table == null || !NAME.matcher(table).matches()) {
      throw new IllegalArgumentException("state log table name " + table + " must be a plain SQL "
          + "identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters, optionally schema.table)");
    }
    return table;
  }

  /** The table's name as configured. */
  public String name() {
    return table;
  }

  /** The schema part of the name, or null. */
  String schema() {
    int dot = table.indexOf('.');
    return dot < 0 ? null : table.substring(0, dot);
  }

  /** The name without its schema. */
  String unqualifiedName() {
    int dot = table.indexOf('.');
    return dot < 0 ? table : table.substring(dot + 1);
  }

  /** The columns as {@link #createSql()} makes them, for messages. */
  public String expectedColumns() {
    return "coordinator_id " + dialect.idType(ID_CHARS) + " NOT NULL PRIMARY KEY, epoch BIGINT "
        + "NOT NULL, holder " + dialect.textType(ID_CHARS) + ", claimed_at_ms BIGINT, "
        + "checkpoint_id BIGINT, state_epoch BIGINT, payload " + dialect.payloadType()
        + ", checksum BIGINT, completed BIGINT NOT NULL";
  }

  /** The statement that creates the table if it does not exist. */
  public String createSql() {
    return "CREATE TABLE IF NOT EXISTS " + table + " (" + expectedColumns() + ")"
        + dialect.tableOptions();
  }

  /** Creates the table if it does not exist. */
  void createIfAbsent(Connection autoCommit) throws SQLException {
    try (Statement s = autoCommit.createStatement()) {
      s.execute(createSql());
    }
  }

  /** What a column must be. */
  private enum Kind { ID, TEXT, BIGINT, BINARY }

  private static final Map<String, Kind> EXPECTED = new LinkedHashMap<>();
  private static final Set<String> NOT_NULL = Set.of("coordinator_id", "epoch", "completed");

  static {
    EXPECTED.put("coordinator_id", Kind.ID);
    EXPECTED.put("epoch", Kind.BIGINT);
    EXPECTED.put("holder", Kind.TEXT);
    EXPECTED.put("claimed_at_ms", Kind.BIGINT);
    EXPECTED.put("checkpoint_id", Kind.BIGINT);
    EXPECTED.put("state_epoch", Kind.BIGINT);
    EXPECTED.put("payload", Kind.BINARY);
    EXPECTED.put("checksum", Kind.BIGINT);
    EXPECTED.put("completed", Kind.BIGINT);
  }

  private static final Set<Integer> TEXT_TYPES = Set.of(Types.VARCHAR, Types.CHAR, Types.NVARCHAR,
      Types.NCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB);
  private static final Set<Integer> BINARY_TYPES =
      Set.of(Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB);

  /** A column of the table, as an empty query's metadata shows it. */
  private record Column(String name, int type, String typeName, int precision, int scale,
      int nullable) {
    @Override
    public String toString() {
      return name + ' ' + typeName.toUpperCase(Locale.ROOT)
          + (TEXT_TYPES.contains(type) && precision > 0 && precision < Integer.MAX_VALUE
              ? "(" + precision + ")" : "");
    }
  }

  /**
   * What is wrong with the table for the log, or null if nothing: every column of {@link
   * #expectedColumns()} there, of a fitting type and width, nullable where the log writes NULL;
   * plus what the dialect checks. Other columns are left alone.
   */
  String shapeMismatch(Connection c) throws SQLException {
    List<Column> columns = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        columns.add(new Column(md.getColumnName(i).toLowerCase(Locale.ROOT), md.getColumnType(i),
            md.getColumnTypeName(i), md.getPrecision(i), md.getScale(i), md.isNullable(i)));
      }
    }
    List<String> missing = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Kind> e : EXPECTED.entrySet()) {
      Column column = columns.stream().filter(col -> col.name().equals(e.getKey())).findFirst()
          .orElse(null);
      if (column == null) {
        missing.add("no column " + e.getKey());
        continue;
      }
      String problem = columnProblem(column, e.getValue());
      if (problem != null) {
        problems.add(problem);
      }
    }
    problems.addAll(0, missing);
    if (missing.isEmpty()) {
      problems.addAll(dialect.tableProblems(c, this));
    }
    if (problems.isEmpty()) {
      return null;
    }
    return String.join(", ", problems) + " (columns found: "
        + String.join(", ", columns.stream().map(Column::toString).toList()) + "; expected: "
        + expectedColumns() + ")";
  }

  private static String columnProblem(Column c, Kind kind) {
    switch (kind) {
      case ID, TEXT -> {
        if (!TEXT_TYPES.contains(c.type())) {
          return c.name() + " is not a text column";
        }
        if (c.precision() > 0 && c.precision() < ID_CHARS) {
          return c.name() + " holds " + c.precision() + " characters, fewer than " + ID_CHARS;
        }
      }
      case BIGINT -> {
        boolean wide = c.type() == Types.BIGINT || ((c.type() == Types.NUMERIC
            || c.type() == Types.DECIMAL) && c.precision() >= 19 && c.scale() == 0);
        if (!wide) {
          return c.name() + " is not a 64-bit integer column";
        }
      }
      case BINARY -> {
        if (!BINARY_TYPES.contains(c.type())) {
          return c.name() + " is not a binary column";
        }
        if (c.precision() > 0 && c.precision() < StateLog.MAX_STATE_BYTES) {
          return c.name() + " holds " + c.precision() + " bytes, fewer than "
              + StateLog.MAX_STATE_BYTES + " (StateLog.MAX_STATE_BYTES)";
        }
      }
    }
    if (!NOT_NULL.contains(c.name()) && c.nullable() == ResultSetMetaData.columnNoNulls) {
      return c.name() + " is NOT NULL, but the log writes NULL into it";
    }
    return null;
  }
}
