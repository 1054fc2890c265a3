package dev.twophase.jdbc.statelog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A zombie in another JVM: a child process holds {@code p0} and is not stopped; this JVM is
 * refused without take-over, takes it over, and the child's next append is fenced while this
 * owner's state stays. Then the child is killed without closing anything.
 */
class JdbcStateLogZombieIT {

  static Stream<String> urls() {
    return Stream.of(PostgresServer.shared().jdbcUrl() + "?user=" + PostgresServer.USER,
        MariaDbServer.shared().jdbcUrl());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("urls")
  void aZombieInAnotherJvmIsFencedByATakeOver(String url) throws Exception {
    String table = "slz_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process child = new ProcessBuilder(List.of(java, "-XX:TieredStopAtLevel=1", "-cp", cp,
        ZombieChild.class.getName(), url, table)).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    try (BufferedReader out = new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        Writer in = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
      assertEquals("claimed 1", out.readLine());
      try (JdbcStateLog polite = JdbcStateLog.builder(JdbcStateLogFactory.dataSource(url))
          .table(table).ownerName("polite").build()) {
        CoordinatorHeldException held = assertThrows(CoordinatorHeldException.class,
            () -> polite.open("p0"));
        assertEquals("zombie", held.holder());
      }
      try (JdbcStateLog owner = JdbcStateLog.builder(JdbcStateLogFactory.dataSource(url))
          .table(table).ownerName("owner").takeOver(true).build()) {
        StateLog.CoordinatorLog p0 = owner.open("p0");
        assertEquals(2, p0.ownerEpoch());
        assertEquals(new StoredState(1, new byte[] {1}), p0.lastState(), "read what the zombie decided");
        in.write("2\n");
        in.flush();
        String reply = out.readLine();
        assertTrue(reply.startsWith("fenced "), reply);
        assertTrue(reply.contains("held by 'owner'"), reply);
        child.destroyForcibly();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        p0.appendState(2, new byte[] {22});
        p0.close();
      }
      try (JdbcStateLog next = JdbcStateLog.builder(JdbcStateLogFactory.dataSource(url))
          .table(table).build()) {
        assertEquals(new StoredState(2, new byte[] {22}), next.open("p0").lastState(),
            "the zombie stored nothing after the take-over");
      }
    } finally {
      child.destroyForcibly();
      try (Connection c = JdbcStateLogFactory.dataSource(url).getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }
}
