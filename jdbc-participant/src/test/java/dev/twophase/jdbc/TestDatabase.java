package dev.twophase.jdbc;

import dev.twophase.jdbc.servers.H2Database;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * One of the real databases a test runs on, with every path of the participant: the SQL dialects
 * of H2, PostgreSQL and MariaDB, and the drivers' {@code XADataSource}s of PostgreSQL and MariaDB.
 * For parameterized tests: {@code @MethodSource("dev.twophase.jdbc.TestDatabase#all")}.
 */
record TestDatabase(String name, DataSource plain, Supplier<JdbcParticipantBuilder<Object>> builder,
    SqlAction rollBackLeftovers, SqlQuery<List<String>> prepared) {

  @FunctionalInterface
  interface SqlAction {
    void run() throws SQLException;
  }

  @FunctionalInterface
  interface SqlQuery<T> {
    T get() throws SQLException;
  }

  private static H2Database h2;

  /** The H2 file database of this JVM's tests of this kind, created at first use. */
  private static synchronized H2Database h2() {
    if (h2 == null) {
      try {
        h2 = H2Database.create("participant");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return h2;
  }

  static Stream<TestDatabase> all() {
    return Stream.concat(dialects(), Stream.of(postgresXa(), mariaDbXa()));
  }

  /** The three SQL dialects. */
  static Stream<TestDatabase> dialects() {
    return Stream.of(h2Dialect(), postgres(), mariaDb());
  }

  /** The server databases (whose sessions a test can kill). */
  static Stream<TestDatabase> servers() {
    return Stream.of(postgres(), mariaDb());
  }

  static TestDatabase h2Dialect() {
    DataSource ds = h2().dataSource();
    return new TestDatabase("H2", ds, () -> JdbcParticipant.builder(ds), () -> {},
        () -> H2Database.inDoubt(ds));
  }

  static TestDatabase postgres() {
    PostgresServer pg = PostgresServer.shared();
    return new TestDatabase("PostgreSQL", pg.dataSource(), () -> JdbcParticipant.builder(pg.dataSource()),
        pg::rollBackLeftovers, pg::preparedTransactions);
  }

  static TestDatabase mariaDb() {
    MariaDbServer m = MariaDbServer.shared();
    return new TestDatabase("MariaDB", m.dataSource(), () -> JdbcParticipant.builder(m.dataSource()),
        m::rollBackLeftovers, m::preparedTransactions);
  }

  static TestDatabase postgresXa() {
    PostgresServer pg = PostgresServer.shared();
    return new TestDatabase("PostgreSQL XA", pg.dataSource(), () -> {
      PGXADataSource xa = new PGXADataSource();
      xa.setUrl(pg.jdbcUrl());
      xa.setUser(PostgresServer.USER);
      return JdbcParticipant.xaBuilder(xa);
    }, pg::rollBackLeftovers, pg::preparedTransactions);
  }

  static TestDatabase mariaDbXa() {
    MariaDbServer m = MariaDbServer.shared();
    return new TestDatabase("MariaDB XA", m.dataSource(), () -> {
      try {
        return JdbcParticipant.xaBuilder(new MariaDbDataSource(m.jdbcUrl()));
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }, m::rollBackLeftovers, m::preparedTransactions);
  }

  void execute(String sql) throws SQLException {
    try (Connection c = plain.getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(sql);
    }
  }

  long count(String sql) throws SQLException {
    try (Connection c = plain.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
