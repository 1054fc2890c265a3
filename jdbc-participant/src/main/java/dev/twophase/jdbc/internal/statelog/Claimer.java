package dev.twophase.jdbc.internal.statelog;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims a coordinator in one database transaction: locks its row ({@code SELECT ... FOR UPDATE};
 * the row is inserted first if there is none), refuses if another owner holds it and take-over is
 * off, checks the last state's checksum, raises the epoch, sets the holder, commits. An append of
 * an earlier owner either committed before the lock (and so is read here) or runs after the
 * commit against the raised epoch, and changes nothing.
 */
@Internal
final class Claimer {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);

  private final StateLogTable table;
  private final StateLogDialect dialect;
  private final String owner;
  private final boolean takeOver;
  private final Clock clock;

  Claimer(StateLogTable table, StateLogDialect dialect, String owner, boolean takeOver,
      Clock clock) {
    this.table = table;
    this.dialect = dialect;
    this.owner = owner;
    this.takeOver = takeOver;
    this.clock = clock;
  }

  /** The row as the claim found it. */
  private record Row(long epoch, String holder, Long claimedAt, Long checkpointId,
      long stateEpoch, byte[] payload, Long checksum, long completed) {}

  /**
   * Claims {@code coordinatorId} on {@code c} (auto-commit off). If it throws, the transaction is
   * rolled back (or its commit failed, which can only have raised the epoch).
   *
   * @throws CoordinatorHeldException if another owner holds it and take-over is off
   * @throws StateLogCorruptedException if its last state fails its checksum; nothing is claimed
   */
  ClaimedRow claim(Connection c, String coordinatorId) throws SQLException {
    boolean committed = false;
    try {
      Row row = lock(c, coordinatorId);
      if (row == null) {
        c.rollback();
        insertBlank(c, coordinatorId);
        row = lock(c, coordinatorId);
        if (row == null) {
          throw new SQLException("the row of coordinator '" + coordinatorId + "' in "
              + table.name() + " was deleted while it was claimed");
        }
      }
      if (row.holder() != null && !row.holder().equals(owner)) {
        if (!takeOver) {
          throw held(coordinatorId, row);
        }
        LOG.warn("Taking over coordinator '{}' in state log table {} from owner '{}' (epoch {}, "
            + "claimed at {}): it is fenced from now on", coordinatorId, table.name(),
            row.holder(), row.epoch(), claimedAt(row));
      }
      StoredState last = lastState(coordinatorId, row);
      long epoch = row.epoch() + 1;
      try (PreparedStatement s = c.prepareStatement(table.claim)) {
        s.setLong(1, epoch);
        s.setString(2, owner);
        s.setLong(3, clock.millis());
        s.setString(4, coordinatorId);
        s.setLong(5, row.epoch());
        if (s.executeUpdate() != 1) {
          throw new SQLException("the locked row of coordinator '" + coordinatorId + "' in "
              + table.name() + " changed during its claim");
        }
      }
      c.commit();
      committed = true;
      return new ClaimedRow(epoch, last, row.completed());
    } finally {
      if (!committed) {
        rollbackQuietly(c);
      }
    }
  }

  private Row lock(Connection c, String coordinatorId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.selectForUpdate)) {
      s.setString(1, coordinatorId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        long epoch = rs.getLong("epoch");
        String holder = rs.getString("holder");
        Long claimedAt = nullable(rs, "claimed_at_ms");
        Long checkpointId = nullable(rs, "checkpoint_id");
        Long stateEpoch = nullable(rs, "state_epoch");
        byte[] payload = rs.getBytes("payload");
        Long checksum = nullable(rs, "checksum");
        long completed = rs.getLong("completed");
        return new Row(epoch, holder, claimedAt, checkpointId,
            stateEpoch == null ? -1 : stateEpoch, payload, checksum, completed);
      }
    }
  }

  private static Long nullable(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  /** Inserts the coordinator's first row in a transaction of its own; a concurrent insert wins. */
  private void insertBlank(Connection c, String coordinatorId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.insertBlank)) {
      s.setString(1, coordinatorId);
      s.executeUpdate();
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      if (!dialect.isDuplicateKey(e)) {
        throw e;
      }
      // another process inserted it first: the lock that follows waits for it
    }
  }

  private StoredState lastState(String coordinatorId, Row row) {
    if (row.checkpointId() == null && row.payload() == null && row.checksum() == null) {
      return null;
    }
    if (row.checkpointId() == null || row.payload() == null || row.checksum() == null
        || row.checkpointId() < 0
        || RowChecksum.of(coordinatorId, row.checkpointId(), row.stateEpoch(), row.payload())
            != row.checksum()) {
      throw new StateLogCorruptedException("state log table " + table.name() + " on "
          + dialect.product() + ": the last state of coordinator '" + coordinatorId + "' ("
          + "checkpoint " + row.checkpointId() + ", written under epoch " + row.stateEpoch()
          + ", " + (row.payload() == null ? "no payload" : row.payload().length + " bytes")
          + ") fails its checksum: the row was changed after the log wrote it. Nothing was "
          + "claimed or skipped. Restore the row from a backup at least as recent as the damage, "
          + "or, if the coordinator's participants are checked by hand, delete its state "
          + "(UPDATE ... SET checkpoint_id = NULL, payload = NULL, checksum = NULL)");
    }
    return new StoredState(row.checkpointId(), row.payload());
  }

  private CoordinatorHeldException held(String coordinatorId, Row row) {
    return new CoordinatorHeldException(coordinatorId, row.holder(), row.epoch(),
        "coordinator '" + coordinatorId + "' in state log table " + table.name() + " on "
            + dialect.product() + " is held by owner '" + row.holder() + "' under epoch "
            + row.epoch() + ", claimed at " + claimedAt(row) + ", and was not released; this "
            + "owner is '" + owner + "'. If that owner still runs, stop it or give this "
            + "coordinator another id (two running coordinators must never share one); if it is "
            + "gone, build the log with takeOver(true) (JdbcStateLog.Builder#takeOver), which "
            + "fences it for good. Nothing was claimed");
  }

  private static String claimedAt(Row row) {
    return row.claimedAt() == null ? "an unknown time" : Instant.ofEpochMilli(row.claimedAt()).toString();
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException ignored) {
      // the connection is discarded by the caller if it is broken
    }
  }
}
