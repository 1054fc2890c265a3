package dev.twophase.jdbc.internal.statelog;

import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: the payload is {@code BYTEA} (up to 1 GB). A commit is durable only with {@code
 * synchronous_commit} other than {@code off}; a session may change it, so the writer checks each of
 * its sessions.
 */
final class PostgresStateLogDialect extends StateLogDialect {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);

  @Override
  public String product() {
    return "PostgreSQL";
  }

  @Override
  String idType(int chars) {
    return "VARCHAR(" + chars + ")";
  }

  @Override
  String payloadType() {
    return "BYTEA";
  }

  @Override
  void checkServer(Connection c) throws SQLException {
    checkSession(c);
    String commit = show(c, "synchronous_commit");
    String standbys = show(c, "synchronous_standby_names");
    if (commit.equals("local") && !standbys.isBlank()) {
      LOG.warn("PostgreSQL has synchronous_standby_names = '{}' but synchronous_commit = local for "
          + "the state log's session: a commit does not wait for the standby, so a failover can "
          + "lose decisions the coordinators acted on. Set synchronous_commit = on or "
          + "remote_apply (docs/state-log-jdbc.md)", standbys);
    }
  }

  private static String show(Connection c, String setting) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW " + setting)) {
      rs.next();
      String value = rs.getString(1);
      return value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    }
  }

  @Override
  void checkSession(Connection c) throws SQLException {
    if (show(c, "synchronous_commit").equals("off")) {
      throw new DatabaseSetupException("PostgreSQL has synchronous_commit = off for the state "
          + "log's session: a commit returns before it is flushed, so a crash of the server could "
          + "lose a decision the coordinator already acted on. Set synchronous_commit to on (or, "
          + "with synchronous replication, remote_apply/remote_write) in postgresql.conf, for the "
          + "log's role (ALTER ROLE ... SET synchronous_commit = on) or in the JDBC URL "
          + "(options=-c synchronous_commit=on)");
    }
  }
}
