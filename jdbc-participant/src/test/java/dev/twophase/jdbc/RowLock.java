package dev.twophase.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Holds the lock of one state log row from a transaction of its own, so that the log's writer
 * blocks on it: what a test needs to line up several writes behind one transaction.
 */
final class RowLock implements AutoCloseable {

  private final Connection c;

  RowLock(DataSource ds, String table, String coordinatorId) throws SQLException {
    c = ds.getConnection();
    c.setAutoCommit(false);
    try (PreparedStatement s = c.prepareStatement(
        "UPDATE " + table + " SET claimed_at_ms = claimed_at_ms WHERE coordinator_id = ?")) {
      s.setString(1, coordinatorId);
      if (s.executeUpdate() != 1) {
        throw new AssertionError("no row " + coordinatorId);
      }
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      c.rollback();
    } finally {
      c.close();
    }
  }
}
