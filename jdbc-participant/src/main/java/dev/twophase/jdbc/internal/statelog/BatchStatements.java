package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of the writer's writes, each conditional on the view's owner epoch. The writes of
 * one kind go to the server as one JDBC batch (one round trip on drivers that pipeline batches),
 * so that a transaction of many coordinators' appends costs about one round trip per kind rather
 * than one per append.
 */
@Internal
final class BatchStatements {

  private BatchStatements() {}

  /**
   * Runs the writes {@code ops}, in their order within each kind, on {@code c} (in the writer's
   * transaction) and returns, per write, the rows it updated (0: fenced), or -1 for a mark with
   * nothing to write. A driver that does not report every statement's count of a batch (one that
   * rewrites batches into one statement, say) would hide a fenced write: then the batch is
   * rolled back and the writes run one statement at a time.
   */
  static int[] execute(Connection c, StateLogTable table, List<WriteOp> ops) throws SQLException {
    int[] rows = new int[ops.size()];
    List<Integer> states = new ArrayList<>();
    List<Integer> completions = new ArrayList<>();
    List<Integer> releases = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      WriteOp op = ops.get(i);
      switch (op.kind) {
        case STATE -> states.add(i);
        case COMPLETION -> {
          if (op.completion < 0) {
            rows[i] = -1;
          } else {
            completions.add(i);
          }
        }
        case RELEASE -> releases.add(i);
      }
    }
    boolean counted = batch(c, table.appendState, ops, states, rows)
        && batch(c, table.appendCompletion, ops, completions, rows)
        && batch(c, table.release, ops, releases, rows);
    if (!counted) {
      c.rollback();
      for (int i = 0; i < ops.size(); i++) {
        rows[i] = execute(c, table, ops.get(i));
      }
    }
    return rows;
  }

  /** One kind's writes as one batch; false if the driver did not count every statement. */
  private static boolean batch(Connection c, String sql, List<WriteOp> ops, List<Integer> which,
      int[] rows) throws SQLException {
    if (which.isEmpty()) {
      return true;
    }
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (int i : which) {
        bind(s, ops.get(i));
        s.addBatch();
      }
      int[] counts = s.executeBatch();
      if (counts.length != which.size()) {
        return false;
      }
      for (int k = 0; k < counts.length; k++) {
        if (counts[k] < 0) { // Statement.SUCCESS_NO_INFO: fenced or not, we cannot tell
          return false;
        }
        rows[which.get(k)] = counts[k];
      }
      return true;
    }
  }

  /** Runs one write on its own; the rows it updated (0: fenced), or -1 for nothing to write. */
  static int execute(Connection c, StateLogTable table, WriteOp op) throws SQLException {
    if (op.kind == WriteOp.Kind.COMPLETION && op.completion < 0) {
      return -1;
    }
    String sql = switch (op.kind) {
      case STATE -> table.appendState;
      case COMPLETION -> table.appendCompletion;
      case RELEASE -> table.release;
    };
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, op);
      int n = s.executeUpdate();
      return n == Statement.SUCCESS_NO_INFO ? 1 : n;
    }
  }

  private static void bind(PreparedStatement s, WriteOp op) throws SQLException {
    CoordinatorView v = op.view;
    switch (op.kind) {
      case STATE -> {
        s.setLong(1, op.checkpointId);
        s.setLong(2, v.ownerEpoch());
        s.setBytes(3, op.payload);
        s.setLong(4, op.checksum);
        s.setString(5, v.coordinatorId());
        s.setLong(6, v.ownerEpoch());
      }
      case COMPLETION -> {
        s.setLong(1, op.completion);
        s.setString(2, v.coordinatorId());
        s.setLong(3, v.ownerEpoch());
      }
      case RELEASE -> {
        s.setLong(1, Math.max(0, op.completion));
        s.setString(2, v.coordinatorId());
        s.setLong(3, v.ownerEpoch());
      }
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
