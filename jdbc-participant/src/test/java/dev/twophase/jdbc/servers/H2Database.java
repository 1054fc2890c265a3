package dev.twophase.jdbc.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * An embedded H2 file database under {@code target/}, with {@code WRITE_DELAY=0} (without it a
 * commit reaches the file up to half a second later, so a crash loses committed rows) and a lock
 * timeout so a leaked prepared transaction fails the next test quickly. {@code DB_CLOSE_DELAY=-1}
 * keeps it open between connections (reopening the file per participant costs a second).
 */
public final class H2Database {

  private final Path file;

  private H2Database(Path file) {
    this.file = file;
  }

  /** A new database file under {@code target/servers}. */
  public static H2Database create(String name) throws IOException {
    return new H2Database(Servers.dataDir("h2-" + name).resolve("db"));
  }

  /** An existing database file (a child JVM of a crash test opens its parent's). */
  public static H2Database at(Path file) {
    return new H2Database(file);
  }

  public Path file() {
    return file;
  }

  public String jdbcUrl() {
    return "jdbc:h2:file:" + file + ";WRITE_DELAY=0;LOCK_TIMEOUT=5000;DB_CLOSE_DELAY=-1";
  }

  public JdbcDataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(jdbcUrl());
    ds.setUser("sa");
    ds.setPassword("");
    return ds;
  }

  /** The names of the in-doubt (prepared) transactions H2 lists. */
  public static List<String> inDoubt(DataSource ds) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT TRANSACTION_NAME FROM INFORMATION_SCHEMA.IN_DOUBT")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }
}
