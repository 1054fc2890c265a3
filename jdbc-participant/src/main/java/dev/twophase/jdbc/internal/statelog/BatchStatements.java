package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The statements of the writer's writes, each conditional on the view's owner epoch. */
@Internal
final class BatchStatements {

  private BatchStatements() {}

  /** Runs one write; the rows it updated (0: fenced), or -1 for a mark with nothing to write. */
  static int execute(Connection c, StateLogTable table, WriteOp op) throws SQLException {
    CoordinatorView v = op.view;
    switch (op.kind) {
      case STATE -> {
        try (PreparedStatement s = c.prepareStatement(table.appendState)) {
          s.setLong(1, op.checkpointId);
          s.setLong(2, v.ownerEpoch());
          s.setBytes(3, op.payload);
          s.setLong(4, op.checksum);
          s.setString(5, v.coordinatorId());
          s.setLong(6, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      case COMPLETION -> {
        if (op.completion < 0) {
          return -1;
        }
        try (PreparedStatement s = c.prepareStatement(table.appendCompletion)) {
          s.setLong(1, op.completion);
          s.setString(2, v.coordinatorId());
          s.setLong(3, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      case RELEASE -> {
        try (PreparedStatement s = c.prepareStatement(table.release)) {
          s.setLong(1, Math.max(0, op.completion));
          s.setString(2, v.coordinatorId());
          s.setLong(3, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      default -> throw new IllegalStateException("unknown write " + op.kind);
    }
  }

  /** The epoch and holder now in the row of a fenced coordinator, for the message. */
  static String currentHolder(Connection c, StateLogTable table, String coordinatorId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.holderOf)) {
      s.setString(1, coordinatorId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return "its row is gone";
        }
        String holder = rs.getString(2);
        return "it is now at epoch " + rs.getLong(1) + ", "
            + (holder == null ? "released" : "held by '" + holder + "'");
      }
    }
  }
}
