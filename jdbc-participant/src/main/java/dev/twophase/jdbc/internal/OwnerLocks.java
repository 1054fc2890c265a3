package dev.twophase.jdbc.internal;

import dev.twophase.FencedException;
import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Who owns a coordinator's transactions in a database: a session-level advisory lock named after
 * the transaction-name prefix (PostgreSQL's {@code pg_try_advisory_lock}, MariaDB's and MySQL's
 * {@code GET_LOCK}), held on a connection of its own for as long as the participant works on
 * them, and released by the server when that session ends, so that a dead owner holds nothing.
 *
 * <p>It exists for one mistake that nothing else can see: a copy of a state log (a restored
 * backup) started beside the original. Both have the same log id, so their transaction names share
 * a prefix, and each one's start-up would roll back the other's prepared transactions as its own
 * leftovers. The second to claim is refused with a {@link FencedException} naming both sessions.
 * H2 has no advisory locks; an embedded H2 database is open in one process only.
 *
 * <p>Within one JVM the lock is taken once per database and prefix, and its ownership moves to a
 * newer owner epoch: an engine's next attempt (Flink's, an {@code EmbeddedCoordinator}'s) may
 * start before the attempt it replaces has closed. An owner of the same or a newer epoch in the
 * same JVM refuses the claim, as another session does. Thread-safe.
 */
@Internal
public final class OwnerLocks {

  /** PostgreSQL's lock class of twophase's advisory locks: {@code 'TPC1'}, as the XA format id. */
  public static final int POSTGRES_LOCK_CLASS = 0x54504331;

  /** The claims this JVM holds, by database URL and prefix. */
  private static final Map<String, Held> HELD = new HashMap<>();

  private final Dialect dialect;
  private final Kind kind;

  public OwnerLocks(Dialect dialect) {
    this.dialect = dialect;
    String product = dialect.product();
    this.kind = product.startsWith("PostgreSQL") ? Kind.POSTGRES
        : product.startsWith("MariaDB") || product.startsWith("MySQL") ? Kind.MARIADB
        : Kind.NONE;
  }

  /** Whether this database can hold claims. */
  public boolean supported() {
    return kind != Kind.NONE;
  }

  /** One participant's claim on a prefix; {@link #close()} gives it up. */
  public static final class Claim implements AutoCloseable {
    private final String key;
    private final long epoch;
    private boolean closed;

    private Claim(String key, long epoch) {
      this.key = key;
      this.epoch = epoch;
    }

    @Override
    public void close() {
      synchronized (HELD) {
        if (closed || key == null) {
          return;
        }
        closed = true;
        Held held = HELD.get(key);
        if (held != null && held.epoch == epoch) {
          HELD.remove(key);
          held.close();
        }
      }
    }
  }

  /**
   * Claims the transactions of {@code prefix} for owner epoch {@code epoch}; on a database without
   * advisory locks, a claim that holds nothing.
   *
   * @throws FencedException if another session, or an owner of the same or a newer epoch in this
   *     JVM, holds them; the message names both
   */
  public Claim claim(String prefix, long epoch, String coordinatorId, String participant) throws SQLException {
    if (kind == Kind.NONE) {
      return new Claim(null, epoch);
    }
    String me = "coordinator '" + coordinatorId + "' participant '" + participant + "', owner epoch " + epoch
        + ", JVM pid " + ProcessHandle.current().pid();
    Connection c = dialect.autoCommitConnection();
    try {
      String key = c.getMetaData().getURL() + " " + prefix;
      synchronized (HELD) {
        Held held = HELD.get(key);
        if (held != null) {
          if (held.epoch >= epoch) {
            throw refused(prefix, held.description, me);
          }
          held.epoch = epoch; // the newer attempt of this JVM takes over
          held.description = me + " (session " + held.session + ")";
          c.close();
          return new Claim(key, epoch);
        }
        String session = session(c);
        if (!tryLock(c, prefix)) {
          throw refused(prefix, holder(c, prefix), me + " (session " + session + ")");
        }
        HELD.put(key, new Held(c, unlockSql(), prefix, epoch, session, me + " (session " + session + ")"));
        return new Claim(key, epoch);
      }
    } catch (SQLException | RuntimeException | Error e) {
      closeQuietly(c);
      throw e;
    }
  }

  private boolean tryLock(Connection c, String prefix) throws SQLException {
    String sql = kind == Kind.POSTGRES ? "SELECT pg_try_advisory_lock(" + POSTGRES_LOCK_CLASS + ", ?)"
        : "SELECT GET_LOCK(?, 0)";
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bindLock(s, prefix);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private String session(Connection c) throws SQLException {
    String sql = kind == Kind.POSTGRES ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
    try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
      return rs.next() ? (kind == Kind.POSTGRES ? "backend pid " : "connection id ") + rs.getLong(1) : "unknown";
    }
  }

  /** Who holds the lock, as far as the server tells; "another session" if it does not. */
  private String holder(Connection c, String prefix) {
    try {
      if (kind == Kind.POSTGRES) {
        try (PreparedStatement s = c.prepareStatement("SELECT a.pid, a.client_addr, a.application_name, "
            + "a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = "
            + "'advisory' AND l.granted AND l.classid::bigint = " + POSTGRES_LOCK_CLASS
            + " AND l.objid::bigint = ? AND l.objsubid = 2")) {
          s.setLong(1, postgresKey(prefix));
          try (ResultSet rs = s.executeQuery()) {
            if (rs.next()) {
              return "the session of backend pid " + rs.getLong(1) + " from " + rs.getString(2)
                  + (rs.getString(3) == null || rs.getString(3).isEmpty() ? "" : ", application '" + rs.getString(3) + "'")
                  + ", since " + rs.getTimestamp(4);
            }
          }
        }
      } else {
        try (PreparedStatement s = c.prepareStatement("SELECT p.ID, p.HOST, p.USER, p.TIME FROM "
            + "information_schema.PROCESSLIST p WHERE p.ID = IS_USED_LOCK(?)")) {
          s.setString(1, mariaDbName(prefix));
          try (ResultSet rs = s.executeQuery()) {
            if (rs.next()) {
              return "the session of connection id " + rs.getLong(1) + " from " + rs.getString(2) + " (user "
                  + rs.getString(3) + ", connected " + rs.getLong(4) + " s ago)";
            }
          }
        }
      }
    } catch (SQLException e) {
      return "another session (the server did not say which: " + e.getMessage() + ")";
    }
    return "another session";
  }

  private String unlockSql() {
    return kind == Kind.POSTGRES ? "SELECT pg_advisory_unlock(" + POSTGRES_LOCK_CLASS + ", ?)" : "SELECT RELEASE_LOCK(?)";
  }

  private void bindLock(PreparedStatement s, String prefix) throws SQLException {
    bind(kind, s, prefix);
  }

  private static void bind(Kind kind, PreparedStatement s, String prefix) throws SQLException {
    if (kind == Kind.POSTGRES) {
      s.setInt(1, (int) postgresKey(prefix));
    } else {
      s.setString(1, mariaDbName(prefix));
    }
  }

  /** 31 bits of the prefix's SHA-256: PostgreSQL's second key, positive as its {@code oid}. */
  public static long postgresKey(String prefix) {
    byte[] d = sha256(prefix);
    return ((d[0] & 0x7fL) << 24) | ((d[1] & 0xffL) << 16) | ((d[2] & 0xffL) << 8) | (d[3] & 0xffL);
  }

  /** {@code twophase.} and 48 hex digits of the prefix's SHA-256: within MariaDB's 64 characters. */
  public static String mariaDbName(String prefix) {
    return "twophase." + HexFormat.of().formatHex(sha256(prefix), 0, 24);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }

  private FencedException refused(String prefix, String holder, String me) {
    return new FencedException("the transactions " + prefix + "* in " + dialect.product() + " are claimed by "
        + holder + ", so this participant (" + me + ") cannot work on them: two coordinators with one id on "
        + "copies of one state log (a restored backup started beside the original, say) share these transaction "
        + "names, and each would roll back the other's prepared transactions as its own leftovers. Stop one of "
        + "them; give a copy that must run on its own its own coordinator id");
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      // the claim failed already; the session's end releases whatever it held
    }
  }

  private enum Kind { POSTGRES, MARIADB, NONE }

  /** The session this JVM holds one claim on. */
  private final class Held {
    private final Connection connection;
    private final String unlockSql;
    private final String prefix;
    private final String session;
    private long epoch;
    private String description;

    Held(Connection connection, String unlockSql, String prefix, long epoch, String session, String description) {
      this.connection = connection;
      this.unlockSql = unlockSql;
      this.prefix = prefix;
      this.epoch = epoch;
      this.session = session;
      this.description = description;
    }

    /**
     * Unlocks, then gives the connection back: a pool keeps the session, and with it a lock left
     * held. If the unlock fails, the session is ended for good ({@link Connection#abort}).
     */
    void close() {
      try (PreparedStatement s = connection.prepareStatement(unlockSql)) {
        bind(kind, s, prefix);
        s.executeQuery().close();
      } catch (SQLException | RuntimeException e) {
        try {
          connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
          // the session is gone or going; either way it holds nothing for long
        }
      }
      closeQuietly(connection);
    }
  }
}
