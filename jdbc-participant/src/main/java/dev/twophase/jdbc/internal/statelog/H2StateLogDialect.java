package dev.twophase.jdbc.internal.statelog;

import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * H2 (2.x): the payload is a {@code BLOB}. Only a file database with {@code WRITE_DELAY=0} keeps a
 * commit once it returned; an in-memory one loses everything with the process. H2 is a local
 * store: it is no replicated log, but it runs the same code as a server database.
 */
final class H2StateLogDialect extends StateLogDialect {

  @Override
  public String product() {
    return "H2";
  }

  @Override
  String idType(int chars) {
    return "VARCHAR(" + chars + ")";
  }

  @Override
  String payloadType() {
    return "BLOB";
  }

  @Override
  void checkServer(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      String path;
      try (ResultSet rs = s.executeQuery("SELECT DATABASE_PATH()")) {
        rs.next();
        path = rs.getString(1);
      }
      if (path == null) {
        throw new DatabaseSetupException("H2 database is in memory: the state log would vanish "
            + "with the process while the participants keep what the coordinator decided. Use a "
            + "file database (jdbc:h2:file:...;WRITE_DELAY=0)");
      }
      try (ResultSet rs = s.executeQuery("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS "
          + "WHERE SETTING_NAME = 'WRITE_DELAY'")) {
        if (rs.next() && !"0".equals(rs.getString(1).trim())) {
          throw new DatabaseSetupException("H2 database " + path + " has WRITE_DELAY = "
              + rs.getString(1).trim() + " ms: it acknowledges a commit before writing it, so a "
              + "crash loses appended states. Add ;WRITE_DELAY=0 to the JDBC URL");
        }
      }
    }
  }
}
