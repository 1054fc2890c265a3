package dev.twophase.flink;

import dev.twophase.jdbc.JdbcParticipant;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.h2.jdbcx.JdbcDataSource;

/**
 * A table {@code records (v VARCHAR)} in an embedded H2 file database opened with the URL that
 * flink.md gives ({@link EmbeddedH2InterruptTest#url}: {@code async:}, {@code WRITE_DELAY=0},
 * {@code DB_CLOSE_DELAY=-1}, so that it survives Flink's cancellations, plus a lock timeout), the
 * JDBC participant's factory writing into it, and an independent reader: the rows as any other
 * session sees them, and the transactions H2 still holds prepared (in doubt).
 */
final class H2Table {

  private final String url;

  H2Table(Path dir) throws SQLException {
    this(EmbeddedH2InterruptTest.url(dir.resolve("db")) + ";LOCK_TIMEOUT=5000");
    create();
  }

  /** The table at {@code url}, created or not (see {@link #create}). */
  H2Table(String url) {
    this.url = url;
  }

  /** Creates the table. */
  void create() throws SQLException {
    try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE records (v VARCHAR(20) NOT NULL)");
    }
  }

  private static JdbcDataSource dataSource(String url) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url);
    ds.setUser("sa");
    ds.setPassword("");
    return ds;
  }

  /** A JDBC participant inserting each record as a row (captures the URL only). */
  ParticipantFactory<JdbcParticipant<String>> participant() {
    String u = url;
    return () -> JdbcParticipant.builder(dataSource(u))
        .<String>insert("INSERT INTO records (v) VALUES (?)", (statement, v) -> statement.setString(1, v))
        .markerDeleteBatch(1) // delete each retired transaction's marker row at once
        .build();
  }

  /** How often each value occurs in the committed rows. */
  Map<String, Integer> rowCounts() throws SQLException {
    Map<String, Integer> counts = new TreeMap<>();
    try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT v, COUNT(*) FROM records GROUP BY v")) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getInt(2));
      }
    }
    return counts;
  }

  /** The JDBC participant's marker rows left (deleted once their transactions are retired). */
  int markerRows() throws SQLException {
    try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM twophase_markers")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The transactions H2 holds prepared. */
  List<String> inDoubt() throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = dataSource(url).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT TRANSACTION_NAME FROM INFORMATION_SCHEMA.IN_DOUBT")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }
}
