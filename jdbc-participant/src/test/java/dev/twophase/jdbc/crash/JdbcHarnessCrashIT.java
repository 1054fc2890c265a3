package dev.twophase.jdbc.crash;

import dev.twophase.jdbc.JdbcPoints;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import dev.twophase.testkit.crash.CrashScenario;
import dev.twophase.testkit.crash.CrashTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The testkit's crash harness on the participant's own points (inside preCommit and commit), in
 * PostgreSQL and in MariaDB: besides "exactly once after recovery" it checks that, right after the
 * crash and before any recovery, a reader sees whole transactions only. (The coordinator's points,
 * across three databases at once, are {@link JdbcCrashIT}'s.)
 */
class JdbcHarnessCrashIT {

  @TempDir Path directory;

  static List<Arguments> scenarios() {
    List<Arguments> all = new ArrayList<>();
    List<String> points = List.of(JdbcPoints.BEFORE_PREPARE, JdbcPoints.AFTER_PREPARE,
        JdbcPoints.BEFORE_COMMIT, JdbcPoints.AFTER_COMMIT);
    for (String db : List.of("postgresql", "mariadb")) {
      for (CrashScenario s : CrashScenario.atEach(points, 2)) {
        all.add(Arguments.of(db, s));
      }
    }
    return all;
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("scenarios")
  void crashInsideTheParticipant(String db, CrashScenario scenario) throws Exception {
    String url;
    if (db.equals("postgresql")) {
      PostgresServer.shared().rollBackLeftovers();
      url = PostgresServer.shared().jdbcUrl() + "?user=" + PostgresServer.USER;
    } else {
      MariaDbServer.shared().rollBackLeftovers();
      url = MariaDbServer.shared().jdbcUrl();
    }
    CrashTest.builder(JdbcCrashSubject.class)
        .workDirectory(directory)
        .records(20)
        .checkpointEvery(5)
        .childProperty(JdbcCrashSubject.URL, url)
        .build()
        .run(scenario);
  }
}
