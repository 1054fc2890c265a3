package dev.twophase.jdbc.crash;

import dev.twophase.jdbc.JdbcPoints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.ProtocolPoint;
import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.CrashScenario;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kills a child JVM ({@link JdbcCrashChild}: one coordinator, rows in PostgreSQL, MariaDB and H2)
 * at the coordinator's protocol points and at the participant's own points inside preCommit and
 * commit, then runs a new JVM that recovers and finishes. {@link JdbcCrashChecker} proves, from
 * the databases alone, that right after recovery all three show exactly the inputs before the
 * restored position, and after the clean finish every input exactly once in each, with no prepared
 * transaction of the scenario left and a foreign prepared transaction untouched.
 */
class JdbcCrashIT {

  /** 4 checkpoints of K inputs, and the finish checkpoint with the last 2. */
  static final long N = 22;
  static final int K = 5;
  static final List<String> DATABASES = List.of(JdbcCrashChild.PG, JdbcCrashChild.MARIA, JdbcCrashChild.H2);
  private static final AtomicInteger SCENARIOS = new AtomicInteger();

  @TempDir Path tmp;

  /**
   * Each protocol point at its second hit (a decided checkpoint exists before it), and each of
   * the participant's own points at hits that fall into each of the three databases (order per
   * checkpoint: pg, maria, h2).
   */
  static Stream<Arguments> crashes() {
    List<Arguments> cases = new ArrayList<>();
    for (ProtocolPoint p : ProtocolPoint.values()) {
      switch (p) {
        case DURING_LOG_APPEND, DURING_COMPACTION -> { } // the state log's own points: core's tests
        case DURING_RECOVERY_COMMIT -> { } // needs a first crash: see crashesInARow
        default -> cases.add(Arguments.of(p.name(), 2));
      }
    }
    cases.add(Arguments.of(JdbcPoints.BEFORE_PREPARE, 1));     // pg, checkpoint 1
    cases.add(Arguments.of(JdbcPoints.AFTER_PREPARE, 5));      // maria, checkpoint 2
    cases.add(Arguments.of(JdbcPoints.BEFORE_COMMIT, 6));      // h2, checkpoint 2
    cases.add(Arguments.of(JdbcPoints.AFTER_COMMIT, 7));       // pg, checkpoint 3
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}:{1}")
  @MethodSource("crashes")
  void crashThenRecover(String point, int hit) throws Exception {
    Scenario s = new Scenario(tmp);
    ChildJvm.Run crashed = s.run(point + ":" + hit);
    assertCrashedAt(crashed, point);
    checkReportIfAny(crashed);
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    s.assertFinal();
  }

  /** Several crashes in a row, one of them during recovery's commits. */
  @Test
  void crashesInARow() throws Exception {
    Scenario s = new Scenario(tmp);
    for (String p : List.of(
        ProtocolPoint.AFTER_LOG_APPEND + ":2",
        ProtocolPoint.DURING_RECOVERY_COMMIT + ":2",
        JdbcPoints.AFTER_PREPARE + ":3",
        ProtocolPoint.BETWEEN_COMMITS + ":3")) {
      ChildJvm.Run c = s.run(p);
      assertCrashedAt(c, p.substring(0, p.indexOf(':')));
      checkReportIfAny(c);
    }
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    checkReport(clean);
    s.assertFinal();
  }

  /** The harness itself: without a crash the child runs to the end, and a second run adds nothing. */
  @Test
  void cleanRunsWithoutCrash() throws Exception {
    Scenario s = new Scenario(tmp);
    ChildJvm.Run clean = s.run(null);
    assertDone(clean);
    assertEquals(0, JdbcCrashChecker.position(clean.report()), clean.describe());
    s.assertFinal();
    ChildJvm.Run again = s.run(null);
    assertDone(again);
    assertEquals(N, JdbcCrashChecker.position(again.report()), again.describe());
    s.assertFinal();
  }

  // ------------------------------------------------------------------ assertions

  static void assertCrashedAt(ChildJvm.Run child, String point) {
    if (child.timedOut()) {
      fail("child did not finish in time\n" + child.describe());
    }
    if (child.exitCode() == 0) {
      fail("the crash point " + point + " was never reached: the child ran to the end, so "
          + "this case proves nothing\n" + child.describe());
    }
    assertEquals(CrashInjector.EXIT_CODE, child.exitCode(),
        "the child failed instead of crashing at " + point + "\n" + child.describe());
    assertTrue(child.err().contains("crash injected at " + point),
        "no 'crash injected at " + point + "' in the child's log\n" + child.describe());
  }

  static void assertDone(ChildJvm.Run child) {
    assertTrue(!child.timedOut() && child.exitCode() == 0 && child.out().lines().anyMatch("DONE"::equals),
        "the clean child did not finish\n" + child.describe());
  }

  static void checkReport(ChildJvm.Run child) throws Exception {
    assertTrue(child.recovered(), "the child wrote no recovery report\n" + child.describe());
    List<String> findings = JdbcCrashChecker.checkRecovery(child.report(), DATABASES);
    assertTrue(findings.isEmpty(), String.join("\n", findings) + "\n" + child.describe());
  }

  static void checkReportIfAny(ChildJvm.Run child) throws Exception {
    if (child.recovered()) {
      checkReport(child);
    }
  }

  // ------------------------------------------------------------------ scenario

  /** One scenario's state log, table, H2 file and children. */
  static final class Scenario {
    final Path root;
    final String table;
    final Path h2File;
    final List<ChildJvm.Run> children = new ArrayList<>();
    final String foreignGid;

    Scenario(Path root) throws Exception {
      this.root = root;
      this.table = "crash" + SCENARIOS.incrementAndGet() + "_" + ProcessHandle.current().pid();
      this.h2File = root.resolve("h2").resolve("db");
      Files.createDirectories(root.resolve("state"));
      PostgresServer.shared().rollBackLeftovers();
      MariaDbServer.shared().rollBackLeftovers();
      // Another application's prepared transaction whose name starts like the scenario's: it must
      // survive every start-up clean-up.
      foreignGid = table + "-pg-1-0-foreign";
      try (Connection c = PostgresServer.shared().dataSource().getConnection(); Statement st = c.createStatement()) {
        st.execute("CREATE TABLE IF NOT EXISTS crash_foreign (n BIGINT)");
        c.setAutoCommit(false);
        st.execute("INSERT INTO crash_foreign VALUES (1)");
        st.execute("PREPARE TRANSACTION '" + foreignGid + "'");
        c.setAutoCommit(true);
      }
    }

    ChildJvm.Run run(String crashAt) throws Exception {
      boolean own = crashAt != null && crashAt.startsWith("jdbc.");
      ChildJvm.Run child = ChildJvm.runNumbered(root, children.size() + 1, JdbcCrashChild.class,
          own ? Map.of(JdbcCrashChild.OWN_CRASH_AT, crashAt) : Map.of(), own ? null : crashAt,
          List.of(root.resolve("state").toString(), PostgresServer.shared().jdbcUrl() + "?user="
                  + PostgresServer.USER, MariaDbServer.shared().jdbcUrl(), h2File.toString(), table,
              Long.toString(N), Integer.toString(K)),
          CrashScenario.CHILD_TIMEOUT);
      children.add(child);
      return child;
    }

    DataSource h2() {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(JdbcCrashChild.h2Url(h2File.toString()));
      return ds;
    }

    void assertFinal() throws Exception {
      StringBuilder all = new StringBuilder();
      for (ChildJvm.Run c : children) {
        all.append(c.describe()).append('\n');
      }
      List<String> findings = new ArrayList<>();
      Map<String, DataSource> databases = Map.of(
          JdbcCrashChild.PG, PostgresServer.shared().dataSource(),
          JdbcCrashChild.MARIA, MariaDbServer.shared().dataSource(),
          JdbcCrashChild.H2, h2());
      for (String db : DATABASES) {
        TreeMap<Long, Integer> counts = new TreeMap<>();
        for (long r : JdbcCrashChecker.rows(databases.get(db), table)) {
          counts.merge(r, 1, Integer::sum);
        }
        findings.addAll(JdbcCrashChecker.exactlyOnce(db + " after the clean finish", counts, N));
      }
      List<String> pgPrepared = PostgresServer.shared().preparedTransactions();
      if (!pgPrepared.equals(List.of(foreignGid))) {
        findings.add("PostgreSQL holds prepared " + pgPrepared + ", expected only the foreign " + foreignGid);
      }
      List<String> mariaPrepared = MariaDbServer.shared().preparedTransactions();
      if (!mariaPrepared.isEmpty()) {
        findings.add("MariaDB holds prepared " + mariaPrepared);
      }
      List<String> h2Prepared = dev.twophase.jdbc.servers.H2Database.inDoubt(h2());
      if (!h2Prepared.isEmpty()) {
        findings.add("H2 holds prepared " + h2Prepared);
      }
      assertTrue(findings.isEmpty(), String.join("\n", findings) + "\n" + all);
    }
  }
}
