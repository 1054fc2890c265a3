package dev.twophase.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/** Helpers of the state log's tests: a fresh table name, and reading or changing a row. */
final class StateLogTables {

  private StateLogTables() {}

  static String fresh() {
    return "sl_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
  }

  static void drop(TestDatabase db, String table) throws SQLException {
    db.execute("DROP TABLE IF EXISTS " + table);
  }

  /** The holder column of a coordinator's row (null: released). */
  static String holder(DataSource ds, String table, String coordinatorId) throws SQLException {
    return string(ds, "SELECT holder FROM " + table + " WHERE coordinator_id = ?", coordinatorId);
  }

  static long epoch(DataSource ds, String table, String coordinatorId) throws SQLException {
    return Long.parseLong(string(ds, "SELECT epoch FROM " + table + " WHERE coordinator_id = ?",
        coordinatorId));
  }

  static long completed(DataSource ds, String table, String coordinatorId) throws SQLException {
    return Long.parseLong(string(ds, "SELECT completed FROM " + table
        + " WHERE coordinator_id = ?", coordinatorId));
  }

  private static String string(DataSource ds, String sql, String id) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no row for " + id);
        }
        return rs.getString(1);
      }
    }
  }

  /** Flips one byte of the payload of a coordinator's last state, leaving its checksum. */
  static void flipPayloadByte(DataSource ds, String table, String coordinatorId)
      throws SQLException {
    byte[] payload;
    try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(
        "SELECT payload FROM " + table + " WHERE coordinator_id = ?")) {
      s.setString(1, coordinatorId);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        payload = rs.getBytes(1);
      }
    }
    payload[payload.length / 2] ^= 0x01;
    try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(
        "UPDATE " + table + " SET payload = ? WHERE coordinator_id = ?")) {
      c.setAutoCommit(true);
      s.setBytes(1, payload);
      s.setString(2, coordinatorId);
      s.executeUpdate();
    }
  }
}
