package dev.twophase.jdbc.statelog;

import dev.twophase.jdbc.servers.H2Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The state log conformance suite on an H2 file database that child JVMs reach too ({@code
 * AUTO_SERVER=TRUE}: the first JVM to open the file serves it to the others). A connection held
 * for the whole class keeps the database, and H2's own threads, open between the tests, so that
 * they are not taken for threads a closed log left behind.
 */
class JdbcStateLogH2ConformanceIT extends JdbcStateLogConformance {

  private static String url;
  private static Connection keepOpen;

  @BeforeAll
  static void openDatabase() throws IOException, SQLException {
    url = "jdbc:h2:file:" + H2Database.create("statelog-conformance").file()
        + ";WRITE_DELAY=0;LOCK_TIMEOUT=5000;AUTO_SERVER=TRUE";
    keepOpen = DriverManager.getConnection(url, "sa", "");
  }

  @AfterAll
  static void closeDatabase() throws SQLException {
    keepOpen.close();
  }

  @Override
  String url() {
    if (url == null) {
      throw new UncheckedIOException(new IOException("the H2 database is not open"));
    }
    return url;
  }
}
