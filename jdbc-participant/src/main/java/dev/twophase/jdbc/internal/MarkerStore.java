package dev.twophase.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;

/**
 * The participant's own statements on the {@link MarkerTable}, each on a short auto-commit
 * connection of the dialect: the look-up that decides ALREADY_COMMITTED or LOST, and the clean-up
 * deletes.
 *
 * <p>Deletes run in READ COMMITTED, restoring the connection's level after. On MariaDB/MySQL the
 * default REPEATABLE READ makes a DELETE that scans the table lock every row it reads and the gaps
 * between them, so it waits for the marker rows of transactions that are prepared and not yet
 * committed (their locks last until the commit) and blocks their neighbours' inserts: with four
 * coordinators the start-up clean-up ran into {@code innodb_lock_wait_timeout}. READ COMMITTED
 * takes no gap locks and skips rows whose latest committed version does not match.
 */
final class MarkerStore {

  private final Dialect dialect;
  private final MarkerTable markers;

  MarkerStore(Dialect dialect, MarkerTable markers) {
    this.dialect = dialect;
    this.markers = markers;
  }

  /** Whether the marker of {@code name} is committed. */
  boolean exists(String name) throws SQLException {
    try (Connection c = dialect.autoCommitConnection()) {
      return markers.exists(c, name);
    }
  }

  /** See {@link MarkerTable#raiseOwnerEpoch}. */
  long raiseOwnerEpoch(String prefix, String owner, long epoch) throws SQLException {
    try (Connection c = dialect.autoCommitConnection()) {
      return markers.raiseOwnerEpoch(c, MarkerTable.ownerRowName(prefix), owner, epoch);
    }
  }

  /** The newest owner epoch recorded for {@code prefix}, or -1 if none is. */
  long ownerEpoch(String prefix) throws SQLException {
    try (Connection c = dialect.autoCommitConnection()) {
      return markers.ownerEpoch(c, MarkerTable.ownerRowName(prefix));
    }
  }

  int delete(Collection<String> names) throws SQLException {
    if (names.isEmpty()) {
      return 0;
    }
    return readCommitted(c -> markers.delete(c, names));
  }

  int deleteEarlierEpochs(String owner, long epoch) throws SQLException {
    return readCommitted(c -> markers.deleteEarlierEpochs(c, owner, epoch));
  }

  private int readCommitted(Step step) throws SQLException {
    try (Connection c = dialect.autoCommitConnection()) {
      int level = c.getTransactionIsolation();
      boolean change = level != Connection.TRANSACTION_READ_COMMITTED;
      if (change) {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      try {
        return step.run(c);
      } finally {
        if (change) {
          c.setTransactionIsolation(level);
        }
      }
    }
  }

  @FunctionalInterface
  private interface Step {
    int run(Connection c) throws SQLException;
  }
}
