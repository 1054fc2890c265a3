package dev.twophase.jdbc.crash;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FaultInjector;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.crash.ChildProgram;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.JdbcPoints;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The program the JDBC crash tests run in a child JVM: input 0, 1, ..., N-1 goes as one row
 * {@code (n)} into table {@code T} of three databases, PostgreSQL ({@value #PG}, through the
 * application's own statements on the transaction's connection), MariaDB ({@value #MARIA},
 * through the batch insert path) and H2 ({@value #H2}, batch path), under one coordinator (named
 * after the table, so that scenarios never share transaction names) over a FileStateLog; it checkpoints after every k inputs, keeps the input position as application
 * state, and ends with {@code finish()}. The same fault injector goes to the coordinator and the
 * three participants, so the test can halt it at a protocol point or inside a participant.
 *
 * <p>Arguments: {@code stateDir pgUrl mariaUrl h2File table N k reportFile}. Right after recovery
 * it writes the report: the restored position and the rows each database shows committed.
 */
public final class JdbcCrashChild {

  /** {@code POINT[:n]} of the participant's own points, e.g. {@code jdbc.commit.afterCommitPrepared:2}. */
  public static final String OWN_CRASH_AT = "twophase.jdbc.crashAt";
  public static final String PG = "pg";
  public static final String MARIA = "maria";
  public static final String H2 = "h2";

  private final ChildProgram.Position position = new ChildProgram.Position();

  public static void main(String[] args) {
    ChildProgram.main(() -> new JdbcCrashChild().run(args));
  }

  /** The H2 URL of the child (no DB_CLOSE_DELAY: the database closes when the child ends). */
  public static String h2Url(String file) {
    return "jdbc:h2:file:" + file + ";WRITE_DELAY=0;LOCK_TIMEOUT=5000";
  }

  private void run(String[] args) throws Exception {
    if (args.length != 8) {
      throw new IllegalArgumentException(
          "usage: JdbcCrashChild stateDir pgUrl mariaUrl h2File table N k reportFile");
    }
    Path stateDir = Path.of(args[0]);
    PGSimpleDataSource pg = new PGSimpleDataSource();
    pg.setUrl(args[1]);
    MariaDbDataSource maria = new MariaDbDataSource(args[2]);
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL(h2Url(args[3]));
    String table = args[4];
    long n = Long.parseLong(args[5]);
    int k = Integer.parseInt(args[6]);
    Path report = Path.of(args[7]);
    FaultInjector faults = ChildProgram.crashInjector();
    // The participant's own points come in a property of their own: core's state log still parses
    // twophase.crashAt as one of its internal crash points and refuses other names.
    FaultInjector own = CrashInjector.parse(System.getProperty(OWN_CRASH_AT), JdbcPoints.all());

    for (javax.sql.DataSource ds : new javax.sql.DataSource[] {pg, maria, h2}) {
      try (Connection c = ds.getConnection(); var s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS " + table + " (n BIGINT NOT NULL)");
      }
    }
    String insert = "INSERT INTO " + table + " (n) VALUES (?)";
    JdbcParticipant<Object> pgRows = JdbcParticipant.builder(pg).name(PG).faultInjector(own).build();
    JdbcParticipant<Long> mariaRows = JdbcParticipant.builder(maria).name(MARIA).faultInjector(own)
        .<Long>insert(insert, (s, r) -> s.setLong(1, r)).batchSize(3).build();
    JdbcParticipant<Long> h2Rows = JdbcParticipant.builder(h2).name(H2).faultInjector(own)
        .<Long>insert(insert, (s, r) -> s.setLong(1, r)).build();

    try (StateLog log = ChildProgram.openLog(stateDir, 0)) {
      Coordinator coordinator = Coordinator.builder(table, log) // one coordinator id per scenario
          .participant(PG, pgRows)
          .participant(MARIA, mariaRows)
          .participant(H2, h2Rows)
          .config(CoordinatorConfig.custom()
              .commitRetryBackoff(Duration.ofMillis(10), Duration.ofMillis(200), 2.0)
              .closeTimeout(Duration.ofSeconds(30))
              .faultInjector(faults)
              .build())
          .applicationState(position.state())
          .build();

      Map<String, javax.sql.DataSource> databases = new LinkedHashMap<>();
      databases.put(PG, pg);
      databases.put(MARIA, maria);
      databases.put(H2, h2);
      JdbcCrashChecker.writeReport(report, position.next, databases, table);
      position.printRecovered(coordinator);

      Output<Long> toMaria = coordinator.output(mariaRows);
      Output<Long> toH2 = coordinator.output(h2Rows);
      long sinceCheckpoint = 0;
      while (position.next < n) {
        long record = position.next;
        Connection c = pgRows.connection(coordinator.currentTransaction(pgRows));
        try (PreparedStatement s = c.prepareStatement(insert)) {
          s.setLong(1, record);
          s.executeUpdate();
        }
        toMaria.write(record);
        toH2.write(record);
        position.next = record + 1;
        if (++sinceCheckpoint == k) {
          sinceCheckpoint = 0;
          coordinator.checkpoint();
        }
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(30));
      coordinator.close();
    }
    if (!Files.exists(report)) {
      throw new IllegalStateException("no recovery report was written");
    }
  }

  static Connection open(String url) throws java.sql.SQLException {
    return DriverManager.getConnection(url);
  }
}
