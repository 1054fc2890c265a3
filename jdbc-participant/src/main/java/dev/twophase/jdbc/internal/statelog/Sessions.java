package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The log's connections, from the user's {@link DataSource}: each in {@code READ COMMITTED} (a
 * locking read then sees the latest committed row on every database) with the log's network
 * timeout, so that a server that stopped answering fails a statement instead of hanging it. What
 * a connection had before is restored when it goes back; one that failed is aborted instead, so a
 * pool never hands out a session in an unknown state. The log never closes the data source.
 */
@Internal
final class Sessions {

  /** A connection of the log, and what to restore on it. */
  record Session(Connection connection, int isolationBefore, boolean autoCommitBefore,
      int networkTimeoutBefore) {}

  private final DataSource dataSource;
  private final int timeoutMillis;

  Sessions(DataSource dataSource, Duration timeout) {
    this.dataSource = dataSource;
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
  }

  int timeoutSeconds() {
    return Math.max(1, timeoutMillis / 1000);
  }

  /** A connection with {@code autoCommit} as given; closed again if setting it up fails. */
  Session open(boolean autoCommit) throws SQLException {
    Connection c = dataSource.getConnection();
    if (c == null) {
      throw new SQLException("the state log's DataSource returned no connection (null)");
    }
    boolean ok = false;
    try {
      int isolation = c.getTransactionIsolation();
      boolean autoCommitBefore = c.getAutoCommit();
      int timeoutBefore = networkTimeout(c);
      if (timeoutBefore >= 0) {
        try {
          c.setNetworkTimeout(Runnable::run, timeoutMillis);
        } catch (SQLFeatureNotSupportedException e) {
          timeoutBefore = -1; // an embedded database: nothing to time out
        }
      }
      c.setAutoCommit(autoCommit);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      ok = true;
      return new Session(c, isolation, autoCommitBefore, timeoutBefore);
    } finally {
      if (!ok) {
        discard(c);
      }
    }
  }

  private static int networkTimeout(Connection c) throws SQLException {
    try {
      return c.getNetworkTimeout();
    } catch (SQLFeatureNotSupportedException e) {
      return -1;
    }
  }

  /**
   * Restores what the connection had and closes it (back to the pool). If restoring fails, the
   * connection is discarded instead (an {@link Error} is thrown on after that).
   */
  static void giveBack(Session s) {
    Connection c = s.connection();
    boolean restored = false;
    try {
      if (!c.getAutoCommit()) {
        c.rollback(); // nothing of the log's is open here; a pool expects no transaction
      }
      c.setTransactionIsolation(s.isolationBefore());
      c.setAutoCommit(s.autoCommitBefore());
      if (s.networkTimeoutBefore() >= 0) {
        c.setNetworkTimeout(Runnable::run, s.networkTimeoutBefore());
      }
      restored = true;
    } catch (SQLException | RuntimeException e) {
      // discarded below
    } finally {
      if (restored) {
        close(c);
      } else {
        discard(c);
      }
    }
  }

  /**
   * Aborts and closes a connection in an unknown state; throws nothing but an {@link Error}, after
   * the close.
   */
  static void discard(Connection c) {
    try {
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException ignored) {
      // closed next in any case
    } finally {
      close(c);
    }
  }

  private static void close(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException ignored) {
      // nothing more to do with it
    }
  }
}
