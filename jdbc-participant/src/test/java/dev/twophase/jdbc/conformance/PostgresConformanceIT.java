package dev.twophase.jdbc.conformance;

import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.jdbc.internal.PostgresDialect;
import dev.twophase.jdbc.servers.PostgresServer;
import javax.sql.DataSource;

/** The conformance suite on a real PostgreSQL server. */
class PostgresConformanceIT extends JdbcConformanceSuite {

  @Override
  protected DataSource dataSource() {
    return PostgresServer.shared().dataSource();
  }

  @Override
  protected String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS " + table
        + " (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v VARCHAR(100) NOT NULL)";
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    PostgresServer.shared().rollBackLeftovers();
  }

  @Override
  protected Dialect dialect() {
    return new PostgresDialect(dataSource());
  }
}
