package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * MariaDB (10.5 and later) and MySQL (5.7.7 and later): {@code XA START/END/PREPARE/COMMIT/
 * ROLLBACK/RECOVER} with the transaction name as gtrid, an empty bqual and the format id {@value
 * #FORMAT_ID}, so other applications' XA branches never look like ours.
 *
 * <p>Traps handled here: a prepared branch stays attached to the session that prepared it until
 * that session ends, and meanwhile {@code XA COMMIT} from any other session answers "unknown XID"
 * (1397, {@code XAER_NOTA}) although {@code XA RECOVER} lists it, so only "not listed" means
 * finished; and a connection that holds a prepared branch must never go back to a pool (the next
 * user's {@code XA START} would fail, and the branch would stay attached to it).
 */
@Internal
public final class MariaDbDialect extends SqlDialect {

  /** "TPC1": marks this participant's branches in {@code XA RECOVER}. */
  public static final int FORMAT_ID = 0x54504331;
  /** An XA gtrid holds at most 64 bytes. */
  static final int MAX_GTRID_BYTES = 64;
  /** ER_XAER_NOTA: "Unknown XID". */
  static final int XAER_NOTA = 1397;
  /** ER_SPECIFIC_ACCESS_DENIED_ERROR, MySQL 8's answer to XA RECOVER without XA_RECOVER_ADMIN. */
  static final int SPECIFIC_ACCESS_DENIED = 1227;

  private final String product;

  public MariaDbDialect(DataSource dataSource, String product) {
    super(dataSource);
    this.product = product;
  }

  @Override
  public String product() {
    return product;
  }

  @Override
  public int maxNameBytes() {
    return MAX_GTRID_BYTES;
  }

  static String xid(String name) {
    return BranchNames.quoted(name) + ",''," + FORMAT_ID;
  }

  @Override
  public void checkServer() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      String version;
      try (ResultSet rs = s.executeQuery("SELECT VERSION()")) {
        rs.next();
        version = rs.getString(1);
      }
      boolean mariaDb = version.toLowerCase(java.util.Locale.ROOT).contains("mariadb");
      int[] v = parseVersion(version);
      if (mariaDb && (v[0] < 10 || (v[0] == 10 && v[1] < 5))) {
        throw new DatabaseSetupException(
            "MariaDB " + version + " rolls back a prepared XA transaction when its connection "
                + "closes, so a prepared transaction would not survive a crash of this process; "
                + "use MariaDB 10.5 or later");
      }
      if (!mariaDb && (v[0] < 5 || (v[0] == 5 && (v[1] < 7 || (v[1] == 7 && v[2] < 7))))) {
        throw new DatabaseSetupException(
            "MySQL " + version + " rolls back a prepared XA transaction when its connection "
                + "closes; use MySQL 5.7.7 or later");
      }
      try (ResultSet rs = s.executeQuery("XA RECOVER")) {
        while (rs.next()) {
          // only the privilege matters here
        }
      } catch (SQLException e) {
        if (e.getErrorCode() == SPECIFIC_ACCESS_DENIED) {
          throw new DatabaseSetupException(
              product + " refuses XA RECOVER to this user (error 1227): without it prepared "
                  + "transactions cannot be found after a crash. GRANT XA_RECOVER_ADMIN ON *.* TO "
                  + "the participant's user (MySQL 8)", e);
        }
        throw e;
      }
    }
  }

  static int[] parseVersion(String version) {
    int[] v = new int[3];
    String[] parts = version.split("[^0-9]+", 4);
    for (int i = 0; i < 3 && i < parts.length; i++) {
      v[i] = parts[i].isEmpty() ? 0 : Integer.parseInt(parts[i]);
    }
    return v;
  }

  /** The transaction is an XA branch, not the session's own: auto-commit stays as it is. */
  @Override
  void start(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("XA START " + xid(name));
    }
  }

  @Override
  void prepare(Connection c, String lastStatement, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(lastStatement);
      s.execute("XA END " + xid(name));
      s.execute("XA PREPARE " + xid(name));
    }
  }

  @Override
  void rollbackActive(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("XA END " + xid(name));
      s.execute("XA ROLLBACK " + xid(name));
    }
  }

  @Override
  String finishSql(String name, boolean commit) {
    return (commit ? "XA COMMIT " : "XA ROLLBACK ") + xid(name);
  }

  /** "Unknown XID", which is also the answer while another session holds the prepared branch. */
  @Override
  boolean isUnknownTransaction(SQLException e) {
    return e.getErrorCode() == XAER_NOTA;
  }

  @Override
  String listSql() {
    return "XA RECOVER";
  }

  @Override
  String listedName(ResultSet row) throws SQLException {
    if (row.getInt("formatID") != FORMAT_ID || row.getInt("bqual_length") != 0) {
      return null; // another application's branch
    }
    String data = row.getString("data");
    int gtridLength = row.getInt("gtrid_length");
    return data.length() >= gtridLength ? data.substring(0, gtridLength) : data;
  }
}
