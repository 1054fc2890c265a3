package dev.twophase.benchmarks.statelog;

import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import dev.twophase.benchmarks.statelog.TimedCrew.Worker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.Locale;
import java.util.zip.CRC32C;
import javax.sql.DataSource;

/**
 * The hand-written JDBC loop a shared state log is measured against: per thread its own
 * connection and coordinator row; per append one conditional {@code UPDATE ... WHERE
 * coordinator_id = ? AND epoch = ?} (which must change the row) and a {@code commit()}, each
 * thread on its own: no batching across threads. The row and the update write what {@code
 * JdbcStateLog}'s do: checkpoint id, the epoch that wrote the state, the payload and a CRC32C over
 * the coordinator id, both ids and the payload.
 */
final class JdbcFloors {

  /** The table of the hand-written loops, one row per coordinator. */
  static final String TABLE = "statelog_floor";

  static final String UPDATE = "UPDATE " + TABLE + " SET checkpoint_id = ?, state_epoch = ?, payload = ?,"
      + " checksum = ? WHERE coordinator_id = ? AND epoch = ?";

  private JdbcFloors() {}

  /** (Re)creates {@link #TABLE} in the database of {@code ds}. */
  static void createTable(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
      s.execute("DROP TABLE IF EXISTS " + TABLE);
      s.execute("CREATE TABLE " + TABLE + " (coordinator_id VARCHAR(255) NOT NULL PRIMARY KEY,"
          + " epoch BIGINT NOT NULL, checkpoint_id BIGINT NOT NULL, state_epoch BIGINT, payload "
          + (postgres ? "BYTEA" : "LONGBLOB") + ", checksum BIGINT)" + (postgres ? "" : " ENGINE=InnoDB"));
    }
  }

  /**
   * Claims {@code coordinatorId}'s row on {@code c} (autocommit off): inserts it at epoch 1 or
   * raises its epoch, in one upsert (concurrent claims of different rows then take no gap locks
   * that deadlock), retried if the database still picks it as a deadlock victim; commits. Returns
   * the epoch.
   */
  static long claim(Connection c, String coordinatorId) throws SQLException {
    boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    String upsert = "INSERT INTO " + TABLE + " (coordinator_id, epoch, checkpoint_id) VALUES (?, 1, 0)"
        + (postgres ? " ON CONFLICT (coordinator_id) DO UPDATE SET epoch = " + TABLE + ".epoch + 1"
            : " ON DUPLICATE KEY UPDATE epoch = epoch + 1");
    for (int attempt = 1; ; attempt++) {
      try {
        try (PreparedStatement claim = c.prepareStatement(upsert)) {
          claim.setString(1, coordinatorId);
          claim.executeUpdate();
        }
        long epoch;
        try (PreparedStatement read =
            c.prepareStatement("SELECT epoch FROM " + TABLE + " WHERE coordinator_id = ?")) {
          read.setString(1, coordinatorId);
          try (ResultSet rs = read.executeQuery()) {
            rs.next();
            epoch = rs.getLong(1);
          }
        }
        c.commit();
        return epoch;
      } catch (SQLTransactionRollbackException e) {
        c.rollback();
        if (attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** Binds one append to {@link #UPDATE}. */
  static void bind(PreparedStatement update, String coordinatorId, long epoch, long checkpointId, byte[] payload)
      throws SQLException {
    update.setLong(1, checkpointId);
    update.setLong(2, epoch);
    update.setBytes(3, payload);
    update.setLong(4, checksum(coordinatorId, checkpointId, epoch, payload));
    update.setString(5, coordinatorId);
    update.setLong(6, epoch);
  }

  private static long checksum(String coordinatorId, long checkpointId, long epoch, byte[] payload) {
    byte[] id = coordinatorId.getBytes(StandardCharsets.UTF_8);
    ByteBuffer header = ByteBuffer.allocate(4 + id.length + 16);
    header.putInt(id.length).put(id).putLong(checkpointId).putLong(epoch).flip();
    CRC32C crc = new CRC32C();
    crc.update(header);
    crc.update(payload, 0, payload.length);
    return crc.getValue();
  }

  /** Per thread a connection and coordinator {@code <prefix>-<thread>}: update and commit. */
  static Variant perThread(DataSource ds, String prefix) {
    return thread -> {
      String id = prefix + "-" + thread;
      Connection c = ds.getConnection();
      try {
        c.setAutoCommit(false);
        long epoch = claim(c, id);
        PreparedStatement update = c.prepareStatement(UPDATE);
        byte[] payload = AppendVariants.payload(thread);
        return new Worker() {
          private long checkpointId;

          @Override
          public void op() throws SQLException {
            bind(update, id, epoch, ++checkpointId, payload);
            if (update.executeUpdate() != 1) {
              throw new SQLException("coordinator " + id + " of the hand-written loop was fenced");
            }
            c.commit();
          }

          @Override
          public void close() throws SQLException {
            try {
              update.close();
            } finally {
              c.close();
            }
          }
        };
      } catch (SQLException | RuntimeException | Error e) {
        c.close();
        throw e;
      }
    };
  }
}
