package dev.twophase.jdbc.statelog;

import dev.twophase.jdbc.servers.MariaDbServer;

/** The state log conformance suite on MariaDB. */
class JdbcStateLogMariaDbConformanceIT extends JdbcStateLogConformance {

  @Override
  String url() {
    return MariaDbServer.shared().jdbcUrl();
  }
}
