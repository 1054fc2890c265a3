package dev.twophase.jdbc.conformance;

import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.jdbc.internal.H2Dialect;
import dev.twophase.jdbc.servers.H2Database;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;

/** The conformance suite on an embedded H2 file database. */
class H2ConformanceIT extends JdbcConformanceSuite {

  private static H2Database database;

  private static synchronized H2Database database() {
    if (database == null) {
      try {
        database = H2Database.create("conformance");
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return database;
  }

  @Override
  protected DataSource dataSource() {
    return database().dataSource();
  }

  @Override
  protected String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS " + table
        + " (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v VARCHAR(100) NOT NULL)";
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      for (String name : H2Database.inDoubt(dataSource())) {
        s.execute("ROLLBACK TRANSACTION \"" + name + "\"");
      }
    }
  }

  @Override
  protected Dialect dialect() {
    return new H2Dialect(dataSource());
  }
}
