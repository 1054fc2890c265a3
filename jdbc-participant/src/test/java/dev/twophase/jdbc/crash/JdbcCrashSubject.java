package dev.twophase.jdbc.crash;

import dev.twophase.Participant;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.internal.Dialect;
import dev.twophase.jdbc.internal.Dialects;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The JDBC participant as the testkit's crash harness runs it: records are numbers inserted through
 * the batch path into a table named after the scenario, in the database whose JDBC URL the test
 * passes as the child property {@value #URL}.
 */
public class JdbcCrashSubject implements CrashSubject<Long> {

  /** The child property with the database's JDBC URL ({@code jdbc:postgresql:} or {@code jdbc:mariadb:}). */
  public static final String URL = "jdbc.url";

  static DataSource dataSource(CrashEnvironment environment) throws Exception {
    String url = environment.property(URL).orElseThrow(
        () -> new IllegalStateException("no child property " + URL));
    if (url.startsWith("jdbc:postgresql:")) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(url);
      return ds;
    }
    return new MariaDbDataSource(url);
  }

  static String table(CrashEnvironment environment) {
    return "harness_" + environment.scenarioId();
  }

  /** The scenario's table, created if missing (the harness may read it before building). */
  static DataSource withTable(CrashEnvironment environment) throws Exception {
    DataSource ds = dataSource(environment);
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + table(environment) + " (n BIGINT NOT NULL)");
    }
    return ds;
  }

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) throws Exception {
    DataSource ds = withTable(environment);
    return JdbcParticipant.builder(ds)
        .faultInjector(environment.faults())
        .<Long>insert("INSERT INTO " + table(environment) + " (n) VALUES (?)", (s, n) -> s.setLong(1, n))
        .batchSize(3)
        .build();
  }

  @Override
  public Long record(long n) {
    return n;
  }

  @Override
  public List<Long> committedRecords(CrashEnvironment environment) throws Exception {
    List<Long> rows = new ArrayList<>();
    try (Connection c = withTable(environment).getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT n FROM " + table(environment))) {
      while (rs.next()) {
        rows.add(rs.getLong(1));
      }
    }
    return rows;
  }

  /** Prepared transactions named after this scenario's coordinator, or shortened ones ({@code ~}). */
  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws Exception {
    Dialect dialect = Dialects.detect(dataSource(environment));
    List<String> open = new ArrayList<>();
    for (String name : dialect.preparedNames()) {
      if (name.startsWith(environment.coordinatorId() + "-") || name.startsWith("~")) {
        open.add(name);
      }
    }
    return open;
  }
}
