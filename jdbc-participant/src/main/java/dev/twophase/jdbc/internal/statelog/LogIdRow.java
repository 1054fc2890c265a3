package dev.twophase.jdbc.internal.statelog;

import dev.twophase.StateLogCorruptedException;
import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The log's id, kept in the row of the empty coordinator id (no coordinator has that id): its
 * payload holds the 8 characters, its checksum covers them. Created once, by whichever process
 * inserts it first; the others read the winner's.
 */
@Internal
final class LogIdRow {

  /** The coordinator id of the row. */
  static final String KEY = "";

  private static final String CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private LogIdRow() {}

  /**
   * The log's id: read, or created if the table holds nothing yet.
   *
   * @throws StateLogCorruptedException if the row is damaged, or missing from a table that holds
   *     coordinators
   */
  static String readOrCreate(Connection autoCommit, StateLogTable table, String product)
      throws SQLException {
    String id = read(autoCommit, table, product);
    if (id != null) {
      return id;
    }
    try (PreparedStatement s = autoCommit.prepareStatement(table.countCoordinators)) {
      s.setString(1, KEY);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        long coordinators = rs.getLong(1);
        if (coordinators > 0) {
          throw new StateLogCorruptedException("state log table " + table.name() + " on "
              + product + " holds " + coordinators + " coordinator rows but no log id (the row "
              + "with the empty coordinator_id was deleted): the log cannot choose a new id, "
              + "which would rename every transaction its coordinators made. Restore the row, or "
              + "the table, from a backup");
        }
      }
    }
    String fresh = newLogId();
    byte[] bytes = fresh.getBytes(StandardCharsets.US_ASCII);
    try (PreparedStatement s = autoCommit.prepareStatement(table.insertLogId)) {
      s.setString(1, KEY);
      s.setBytes(2, bytes);
      s.setLong(3, RowChecksum.of(KEY, 0, 0, bytes));
      s.executeUpdate();
      return fresh;
    } catch (SQLException e) {
      String winner = read(autoCommit, table, product);
      if (winner == null) {
        throw e;
      }
      return winner; // another process created it first
    }
  }

  private static String read(Connection c, StateLogTable table, String product)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.selectRow)) {
      s.setString(1, KEY);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        byte[] payload = rs.getBytes("payload");
        long checksum = rs.getLong("checksum");
        boolean checksumNull = rs.wasNull();
        String id = payload == null ? null : new String(payload, StandardCharsets.US_ASCII);
        if (payload == null || checksumNull || RowChecksum.of(KEY, 0, 0, payload) != checksum
            || !isLogId(id)) {
          throw new StateLogCorruptedException("state log table " + table.name() + " on "
              + product + ": the log id row (the empty coordinator_id) is damaged (its payload "
              + "or checksum is not what the log wrote). Restore the row, or the table, from a "
              + "backup; the log does not choose a new id");
        }
        return id;
      }
    }
  }

  static String newLogId() {
    char[] id = new char[8];
    for (int i = 0; i < id.length; i++) {
      id[i] = CHARS.charAt(RANDOM.nextInt(CHARS.length()));
    }
    return new String(id);
  }

  static boolean isLogId(String id) {
    if (id == null || id.length() != 8) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      if (CHARS.indexOf(id.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }
}
