package dev.twophase.demo;

import dev.twophase.jdbc.JdbcParticipant;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The third sink: an embedded H2 file database with one table, {@code orders(id, customer,
 * amount)}, written through the JDBC participant's batch insert path. Each checkpoint's rows are
 * one database transaction, prepared ({@code PREPARE COMMIT}) when the checkpoint is taken and
 * committed after the coordinator's decision; after a crash, the next JVM commits or rolls back
 * what the crashed one left prepared.
 *
 * <p>An embedded H2 file is open in one process at a time: the job has it while it runs, and the
 * demo's parent reads it only while no job runs.
 */
final class TableSink {

  static final String TABLE = "orders";

  private TableSink() {}

  /** The database's URL: a file database whose commits are durable at once ({@code WRITE_DELAY=0}). */
  static String url(Path dir) {
    return "jdbc:h2:file:" + dir.toAbsolutePath().resolve("orders") + ";WRITE_DELAY=0;LOCK_TIMEOUT=10000";
  }

  static JdbcDataSource dataSource(Path dir) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url(dir));
    ds.setUser("sa");
    ds.setPassword("");
    return ds;
  }

  /**
   * Creates the table if missing and builds the participant. The {@code id} column is not a key, so
   * that the check can count a row written twice instead of the database refusing it.
   */
  static JdbcParticipant<Orders.Order> participant(Path dir) throws SQLException {
    JdbcDataSource ds = dataSource(dir);
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + TABLE
          + " (id BIGINT NOT NULL, customer VARCHAR(40) NOT NULL, amount DECIMAL(12, 2) NOT NULL)");
    }
    return JdbcParticipant.builder(ds)
        .name("h2 table")
        .<Orders.Order>insert("INSERT INTO " + TABLE + " (id, customer, amount) VALUES (?, ?, ?)", (st, o) -> {
          st.setLong(1, o.id());
          st.setString(2, o.customer());
          st.setBigDecimal(3, o.amount());
        })
        .build();
  }

  /** What the database holds now: committed rows, and prepared transactions not yet decided. */
  record State(long rows, long prepared) {
    String describe() {
      return rows + " committed rows, " + (prepared == 0 ? "no prepared transactions"
          : prepared + " prepared transaction" + (prepared == 1 ? "" : "s") + " (in doubt: rows written, invisible)");
    }
  }

  /** Reads the table's committed rows and H2's in-doubt (prepared) transactions. */
  static State state(Path dir) throws SQLException {
    try (Connection c = dataSource(dir).getConnection(); Statement s = c.createStatement()) {
      return new State(count(s, "SELECT COUNT(*) FROM " + TABLE), inDoubt(s));
    }
  }

  /**
   * Reads every committed row, as another session would: each id 0..n-1 exactly once, with the
   * input's customer and amount; prepared transactions left in doubt count as left unfinished.
   */
  static SinkCheck check(Path dir, long n) throws SQLException {
    SinkCheck.Tally tally = new SinkCheck.Tally(n);
    long prepared;
    try (Connection c = dataSource(dir).getConnection(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT id, customer, amount FROM " + TABLE)) {
        while (rs.next()) {
          long id = rs.getLong(1);
          String customer = rs.getString(2);
          String amount = rs.getBigDecimal(3).toPlainString();
          Orders.Order expected = id >= 0 && id < n ? Orders.order(id) : null;
          boolean matches = expected != null && customer.equals(expected.customer())
              && amount.equals(expected.amount().toPlainString());
          tally.record(expected == null ? -1 : id, matches, "row", id + "," + customer + "," + amount);
        }
      }
      prepared = inDoubt(s);
    }
    return tally.result(DemoJob.TABLE, "H2 table " + TABLE, prepared, "prepared transactions");
  }

  private static long inDoubt(Statement s) throws SQLException {
    return count(s, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.IN_DOUBT");
  }

  private static long count(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
