package dev.twophase.jdbc.statelog;

import dev.twophase.testkit.statelog.Ownership;
import dev.twophase.testkit.statelog.StateLogConformanceSuite;
import dev.twophase.testkit.statelog.StateLogFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * {@link StateLogConformanceSuite} against {@link dev.twophase.jdbc.JdbcStateLog} on one database:
 * a fresh table per store, dropped after the test; damage is a flipped payload byte.
 */
abstract class JdbcStateLogConformance extends StateLogConformanceSuite {

  private final List<String> tables = new ArrayList<>();

  /** The JDBC URL of the database, with its user; reachable from child JVMs. */
  abstract String url();

  private DataSource dataSource() throws SQLException {
    return JdbcStateLogFactory.dataSource(url());
  }

  private String table() {
    return tables.get(tables.size() - 1);
  }

  @Override
  protected void setUpStore() {
    tables.add("slc_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE));
  }

  @Override
  protected void tearDownStore() throws Exception {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      for (String t : tables) {
        s.execute("DROP TABLE IF EXISTS " + t);
      }
    } finally {
      tables.clear();
    }
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of(JdbcStateLogFactory.URL, url(), JdbcStateLogFactory.TABLE, table());
  }

  @Override
  protected Class<? extends StateLogFactory> factory() {
    return JdbcStateLogFactory.class;
  }

  @Override
  protected Ownership ownership() {
    return Ownership.PER_COORDINATOR;
  }

  @Override
  protected void damageLastState(String coordinatorId) throws Exception {
    String table = table();
    try (Connection c = dataSource().getConnection()) {
      byte[] payload;
      try (PreparedStatement s = c.prepareStatement(
          "SELECT payload FROM " + table + " WHERE coordinator_id = ?")) {
        s.setString(1, coordinatorId);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next() || rs.getBytes(1) == null) {
            throw new AssertionError("no state of " + coordinatorId + " in " + table);
          }
          payload = rs.getBytes(1);
        }
      }
      if (payload.length == 0) {
        payload = new byte[] {1};
      } else {
        payload[payload.length / 2] ^= 0x20;
      }
      try (PreparedStatement s = c.prepareStatement(
          "UPDATE " + table + " SET payload = ? WHERE coordinator_id = ?")) {
        s.setBytes(1, payload);
        s.setString(2, coordinatorId);
        s.executeUpdate();
      }
    }
  }
}
