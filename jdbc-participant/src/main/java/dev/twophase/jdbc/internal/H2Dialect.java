package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * H2 (2.x, MVStore): {@code PREPARE COMMIT "name"}, {@code COMMIT TRANSACTION "name"}, {@code
 * ROLLBACK TRANSACTION "name"}, {@code INFORMATION_SCHEMA.IN_DOUBT}. H2 lists a prepared
 * transaction in {@code IN_DOUBT} from every session as soon as it is prepared, and keeps it when
 * its session closes or the process dies.
 *
 * <p>Traps: H2 accepts the same name for two prepared transactions, and {@code COMMIT TRANSACTION}
 * then finishes one of them, so a name listed twice is refused rather than committed; a file
 * database with a {@code WRITE_DELAY} above 0 acknowledges commits before they reach the file; and
 * the session that ran {@code COMMIT TRANSACTION} for a recovered transaction may not see its rows
 * until its next transaction (other sessions do at once).
 */
@Internal
public final class H2Dialect extends SqlDialect {

  /** H2's identifiers are at most 256 characters; stay well within. */
  static final int MAX_NAME = 200;
  /** TRANSACTION_NOT_FOUND_1. */
  static final int TRANSACTION_NOT_FOUND = 90129;

  public H2Dialect(DataSource dataSource) {
    super(dataSource);
  }

  @Override
  public String product() {
    return "H2";
  }

  @Override
  public int maxNameBytes() {
    return MAX_NAME;
  }

  static String identifier(String name) {
    BranchNames.requireSafe(name);
    return '"' + name + '"';
  }

  @Override
  public void checkServer() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      String path;
      try (ResultSet rs = s.executeQuery("SELECT DATABASE_PATH()")) {
        rs.next();
        path = rs.getString(1);
      }
      if (path == null) {
        throw new DatabaseSetupException(
            "H2 database is in memory: its prepared transactions vanish with the process while "
                + "the coordinator's log says they were decided. Use a file database "
                + "(jdbc:h2:file:...;WRITE_DELAY=0)");
      }
      try (ResultSet rs = s.executeQuery(
          "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
        if (rs.next() && !"0".equals(rs.getString(1).trim())) {
          throw new DatabaseSetupException(
              "H2 database " + path + " has WRITE_DELAY = " + rs.getString(1).trim() + " ms: it "
                  + "acknowledges a commit before writing it, so a crash loses committed and "
                  + "prepared transactions. Add ;WRITE_DELAY=0 to the JDBC URL");
        }
      }
    }
  }

  @Override
  void prepare(Connection c, String lastStatement, String name) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(lastStatement);
      s.execute("PREPARE COMMIT " + identifier(name));
    }
  }

  @Override
  String finishSql(String name, boolean commit) {
    return (commit ? "COMMIT TRANSACTION " : "ROLLBACK TRANSACTION ") + identifier(name);
  }

  /** H2 accepts duplicate prepared names and would finish an arbitrary one: every finish lists first. */
  @Override
  boolean listsBeforeFinishing() {
    return true;
  }

  @Override
  boolean isUnknownTransaction(SQLException e) {
    return e.getErrorCode() == TRANSACTION_NOT_FOUND;
  }

  @Override
  String listSql() {
    return "SELECT TRANSACTION_NAME FROM INFORMATION_SCHEMA.IN_DOUBT";
  }
}
