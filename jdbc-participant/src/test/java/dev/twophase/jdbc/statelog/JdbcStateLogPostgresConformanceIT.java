package dev.twophase.jdbc.statelog;

import dev.twophase.jdbc.servers.PostgresServer;

/** The state log conformance suite on PostgreSQL. */
class JdbcStateLogPostgresConformanceIT extends JdbcStateLogConformance {

  @Override
  String url() {
    return PostgresServer.shared().jdbcUrl() + "?user=" + PostgresServer.USER;
  }
}
