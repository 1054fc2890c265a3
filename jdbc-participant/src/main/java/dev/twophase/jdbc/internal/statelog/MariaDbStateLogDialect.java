package dev.twophase.jdbc.internal.statelog;

import dev.twophase.StateLog;
import dev.twophase.jdbc.DatabaseSetupException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB and MySQL: the payload is a {@code LONGBLOB}, the table InnoDB (the only engine whose
 * commits are transactional and whose {@code FOR UPDATE} locks), and the key compared byte by byte
 * ({@code utf8mb4_nopad_bin}): under the default collation {@code 'P0'}, {@code 'p0'} and {@code
 * 'p0 '} would be one coordinator.
 *
 * <p>The server must carry a whole state in one statement ({@code max_allowed_packet}; the driver
 * sends bytes escaped in the statement's text, up to twice their size) and flush the redo log at
 * every commit ({@code innodb_flush_log_at_trx_commit = 1}).
 */
final class MariaDbStateLogDialect extends StateLogDialect {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);

  /** The smallest {@code max_allowed_packet} that carries a state of the largest size, escaped. */
  static final long MIN_MAX_ALLOWED_PACKET = 2L * StateLog.MAX_STATE_BYTES + 1024 * 1024;

  private final String product;

  MariaDbStateLogDialect(String product) {
    this.product = product;
  }

  @Override
  public String product() {
    return product;
  }

  @Override
  String idType(int chars) {
    return product.equals("MariaDB")
        ? "VARCHAR(" + chars + ") CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
        : "VARCHAR(" + chars + ") CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin";
  }

  @Override
  String textType(int chars) {
    return "VARCHAR(" + chars + ") CHARACTER SET utf8mb4";
  }

  @Override
  String payloadType() {
    return "LONGBLOB";
  }

  @Override
  String tableOptions() {
    return " ENGINE=InnoDB";
  }

  @Override
  void checkServer(Connection c) throws SQLException {
    long packet;
    String flush;
    String logBin;
    String syncBinlog;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT "
        + "@@GLOBAL.max_allowed_packet, @@GLOBAL.innodb_flush_log_at_trx_commit, @@GLOBAL.log_bin, "
        + "@@GLOBAL.sync_binlog")) {
      rs.next();
      packet = rs.getLong(1);
      flush = rs.getString(2);
      logBin = rs.getString(3);
      syncBinlog = rs.getString(4);
    }
    String problem = settingsProblem(product, packet, flush);
    if (problem != null) {
      throw new DatabaseSetupException(problem);
    }
    if (("1".equals(logBin) || "ON".equalsIgnoreCase(logBin)) && !"1".equals(syncBinlog)) {
      LOG.warn("{} writes a binary log with sync_binlog = {}: a crash of the server can lose "
          + "appended states from the binary log, and so from replicas fed by it; set "
          + "sync_binlog = 1 where replicas take over (docs/state-log-jdbc.md)", product, syncBinlog);
    }
  }

  /** What is wrong with these server settings for the state log, or null. */
  static String settingsProblem(String product, long maxAllowedPacket, String flushLogAtTrxCommit) {
    if (maxAllowedPacket < MIN_MAX_ALLOWED_PACKET) {
      return product + " has max_allowed_packet = " + maxAllowedPacket + " bytes: a state of up "
          + "to " + StateLog.MAX_STATE_BYTES + " bytes, which the driver sends escaped in the "
          + "statement (up to twice its size), needs at least " + MIN_MAX_ALLOWED_PACKET
          + ". Set max_allowed_packet = 64M in the server's configuration (or SET GLOBAL "
          + "max_allowed_packet = 67108864, for new connections)";
    }
    if (!"1".equals(flushLogAtTrxCommit == null ? null : flushLogAtTrxCommit.trim())) {
      return product + " has innodb_flush_log_at_trx_commit = " + flushLogAtTrxCommit + ": a "
          + "commit returns before the redo log is flushed, so a crash of the server could lose a "
          + "decision the coordinator already acted on. Set innodb_flush_log_at_trx_commit = 1 in "
          + "the server's configuration (or SET GLOBAL innodb_flush_log_at_trx_commit = 1)";
    }
    return null;
  }

  @Override
  List<String> tableProblems(Connection c, StateLogTable table) throws SQLException {
    List<String> problems = new ArrayList<>();
    String schema = table.schema();
    String name = table.unqualifiedName();
    try (PreparedStatement s = c.prepareStatement("SELECT ENGINE FROM information_schema.TABLES "
        + "WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?")) {
      s.setString(1, schema);
      s.setString(2, name);
      try (ResultSet rs = s.executeQuery()) {
        if (rs.next() && rs.getString(1) != null
            && !rs.getString(1).equalsIgnoreCase("InnoDB")) {
          problems.add("its engine is " + rs.getString(1) + ", not InnoDB (its commits are not "
              + "transactional)");
        }
      }
    }
    try (PreparedStatement s = c.prepareStatement("SELECT COLLATION_NAME FROM "
        + "information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND "
        + "TABLE_NAME = ? AND COLUMN_NAME = 'coordinator_id'")) {
      s.setString(1, schema);
      s.setString(2, name);
      try (ResultSet rs = s.executeQuery()) {
        if (rs.next()) {
          String collation = rs.getString(1);
          if (collation != null && !exactCollation(collation)) {
            problems.add("coordinator_id has the collation " + collation + ", under which "
                + "different ids compare equal (case, trailing spaces); it needs a binary one "
                + "without padding (" + idType(StateLogTable.ID_CHARS) + ")");
          }
        }
      }
    }
    return problems;
  }

  /** A binary collation that does not pad: ids compare equal only when their bytes are. */
  static boolean exactCollation(String collation) {
    String c = collation.toLowerCase(Locale.ROOT);
    return c.endsWith("_nopad_bin") || c.equals("utf8mb4_0900_bin") || c.equals("binary");
  }
}
