package dev.twophase.jdbc.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The test servers start, with the settings the participant's tests rely on. */
class ServersIT {

  @Test
  void postgresIsDurableWithPreparedTransactions() throws Exception {
    PostgresServer pg = PostgresServer.shared();
    try (Connection c = pg.dataSource().getConnection(); Statement s = c.createStatement()) {
      assertEquals("64", show(s, "max_prepared_transactions"));
      assertEquals("on", show(s, "fsync"));
      assertEquals("on", show(s, "synchronous_commit"));
      assertEquals("5s", show(s, "lock_timeout"));
      assertTrue(show(s, "server_version").startsWith("1"));
    }
  }

  @Test
  void mariaDbFlushesEveryCommit() throws Exception {
    MariaDbServer db = MariaDbServer.shared();
    try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
      assertEquals("1", variable(s, "innodb_flush_log_at_trx_commit"));
      assertEquals("5", variable(s, "innodb_lock_wait_timeout"));
      assertTrue(variable(s, "version").startsWith("10."), variable(s, "version"));
    }
  }

  private static String show(Statement s, String setting) throws Exception {
    try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String variable(Statement s, String name) throws Exception {
    try (ResultSet rs = s.executeQuery("SELECT @@" + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
