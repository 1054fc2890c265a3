package dev.twophase.jdbc.example;

import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.RowBinder;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The README demo's third sink: an embedded H2 file database with one table, {@code orders(id,
 * customer, amount)}, written through the JDBC participant's batch insert path under the same
 * coordinator as the two file sinks, and read back by an independent check.
 *
 * <p>Wiring in the demo's job: {@code H2TableSink.participant(work.resolve("out/h2"), binder)} as
 * a third {@code .participant("table", ...)}, an {@code Output} for it, and one {@code write(order)}
 * per input record next to the two file outputs. The verifier calls {@link #check} after the
 * child JVM ended (an embedded H2 file is open in one process at a time).
 */
public final class H2TableSink {

  public static final String TABLE = "orders";

  private H2TableSink() {}

  /** The database's URL: a file database, commits durable at once ({@code WRITE_DELAY=0}). */
  public static String url(Path dir) {
    return "jdbc:h2:file:" + dir.toAbsolutePath().resolve("orders") + ";WRITE_DELAY=0;LOCK_TIMEOUT=10000";
  }

  public static JdbcDataSource dataSource(Path dir) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url(dir));
    ds.setUser("sa");
    ds.setPassword("");
    return ds;
  }

  /** Binds one record as {@code (id, customer, amount)}. */
  public interface OrderColumns<T> {
    long id(T record);

    String customer(T record);

    BigDecimal amount(T record);
  }

  /**
   * Creates the table if missing and builds the participant. Its {@code id} column is not a key,
   * so that the check can count a row written twice instead of the database refusing it.
   */
  public static <T> JdbcParticipant<T> participant(Path dir, OrderColumns<T> columns) throws SQLException {
    JdbcDataSource ds = dataSource(dir);
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + TABLE
          + " (id BIGINT NOT NULL, customer VARCHAR(40) NOT NULL, amount DECIMAL(12, 2) NOT NULL)");
    }
    RowBinder<T> binder = (statement, record) -> {
      statement.setLong(1, columns.id(record));
      statement.setString(2, columns.customer(record));
      statement.setBigDecimal(3, columns.amount(record));
    };
    return JdbcParticipant.builder(ds)
        .name("h2 table")
        .<T>insert("INSERT INTO " + TABLE + " (id, customer, amount) VALUES (?, ?, ?)", binder)
        .build();
  }

  /** What the table holds against the input. */
  public record Check(long rows, long distinct, long duplicates, long lost, long unexpected, long inDoubt,
      List<String> examples) {

    public boolean ok() {
      return duplicates == 0 && lost == 0 && unexpected == 0 && inDoubt == 0 && rows == distinct;
    }

    public String describe() {
      return rows + " rows, " + distinct + " distinct ids, " + duplicates + " duplicates, " + lost + " lost, "
          + unexpected + " unexpected, " + inDoubt + " prepared transactions left"
          + (examples.isEmpty() ? "" : "; e.g. " + examples);
    }
  }

  /**
   * Reads every committed row: each id 0..n-1 exactly once, with the content {@code expected}
   * gives ({@code customer,amount}), and no prepared transaction left in doubt.
   */
  public static Check check(Path dir, long n, LongFunction<String> expected) throws SQLException {
    byte[] seen = new byte[Math.toIntExact(n)];
    long rows = 0;
    long duplicates = 0;
    long unexpected = 0;
    long inDoubt;
    List<String> examples = new ArrayList<>();
    try (Connection c = dataSource(dir).getConnection(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT id, customer, amount FROM " + TABLE)) {
        while (rs.next()) {
          rows++;
          long id = rs.getLong(1);
          String content = rs.getString(2) + "," + rs.getBigDecimal(3).toPlainString();
          if (id < 0 || id >= n || !content.equals(expected.apply(id))) {
            unexpected++;
            note(examples, "unexpected row " + id + ": " + content);
            continue;
          }
          if (seen[(int) id]++ > 0) {
            duplicates++;
            note(examples, "duplicate of " + id);
          }
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.IN_DOUBT")) {
        rs.next();
        inDoubt = rs.getLong(1);
      }
    }
    long distinct = 0;
    long lost = 0;
    for (int i = 0; i < seen.length; i++) {
      if (seen[i] > 0) {
        distinct++;
      } else {
        lost++;
        note(examples, "row " + i + " is missing");
      }
    }
    return new Check(rows, distinct, duplicates, lost, unexpected, inDoubt, examples);
  }

  private static void note(List<String> examples, String text) {
    if (examples.size() < 5) {
      examples.add(text);
    }
  }
}
