package dev.twophase.jdbc.conformance;

import dev.twophase.jdbc.JdbcTransaction;
import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.jdbc.internal.MariaDbDialect;
import dev.twophase.jdbc.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The conformance suite on a real MariaDB server. */
class MariaDbConformanceIT extends JdbcConformanceSuite {

  @Override
  protected DataSource dataSource() {
    return MariaDbServer.shared().dataSource();
  }

  @Override
  protected String createTable(String table) {
    return "CREATE TABLE IF NOT EXISTS " + table
        + " (seq BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(100) NOT NULL) ENGINE=InnoDB";
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    MariaDbServer.shared().rollBackLeftovers();
  }

  @Override
  protected Dialect dialect() {
    return new MariaDbDialect(dataSource(), "MariaDB");
  }

  /**
   * MariaDB keeps a prepared branch attached to the session that prepared it, and only a rollback
   * from that session or the session's end frees it: the server kills the idle sessions of the
   * test database (the participant's), then rolls the branch back.
   */
  @Override
  protected void makeLost(JdbcTransaction transaction) throws Exception {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      List<Long> sessions = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> "
          + "CONNECTION_ID() AND DB = '" + MariaDbServer.DATABASE + "' AND COMMAND = 'Sleep'")) {
        while (rs.next()) {
          sessions.add(rs.getLong(1));
        }
      }
      for (long id : sessions) {
        s.execute("KILL CONNECTION " + id);
      }
    }
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (true) {
      try {
        dialect().rollbackRecovered(transaction.name());
        return;
      } catch (dev.twophase.jdbc.internal.BranchStillAttachedException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(20);
      }
    }
  }
}
