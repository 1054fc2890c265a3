package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the embedded H2 URL that flink.md gives guarantees when Flink cancels a task: its thread, in
 * the middle of prepared transactions (as the JDBC participant runs them), is interrupted again and
 * again and goes on closing its connection with the interrupt flag set, while another thread
 * commits all along.
 *
 * <p>H2 does not promise that the other sessions never notice: an interrupted thread that waits for
 * one of H2's internal map locks while another session writes ({@code MVMap.tryLock} sleeps) makes
 * H2 close the database for every session. What the URL does promise, and what exactly-once
 * recovery needs, is checked here: such a failure is only ever the database being closed; a new
 * connection after every interrupt opens the database again and works; every transaction whose
 * commit returned is in the table once; and whatever an interrupt left prepared belongs to an
 * interrupted thread and can still be committed by name, as the participant's recovery does. With
 * {@code jdbc:h2:file:...;WRITE_DELAY=0} the interrupt closes H2's file channel
 * ({@code ClosedByInterruptException}) and with {@code DB_CLOSE_DELAY=-1} the database then stays
 * unusable until the JVM ends (90020).
 */
class EmbeddedH2InterruptTest {

  /** The URL of flink.md, for a database file {@code path}. */
  static String url(Path path) {
    return "jdbc:h2:async:" + path.toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_DELAY=-1";
  }

  @TempDir
  Path tmp;

  private final Set<String> committed = ConcurrentHashMap.newKeySet();
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  private void transaction(String url, String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO t VALUES ('" + name + "')");
        s.execute("PREPARE COMMIT \"" + name + "\"");
        s.execute("COMMIT TRANSACTION \"" + name + "\"");
      }
    }
    committed.add(name);
  }

  /**
   * Records {@code e} unless it is H2 closing the database for every session after an interrupt:
   * {@code The database has been closed [90098]}, {@code Database is already closed [90121]}, or the
   * general error (50000) whose cause is the interrupted lock wait itself.
   */
  private void unlessDatabaseClosed(String where, SQLException e) {
    boolean closed = e.getErrorCode() == 90098 || e.getErrorCode() == 90121
        || (e.getErrorCode() == 50000 && String.valueOf(e.getMessage()).contains("InterruptedException"));
    if (!closed) {
      failures.add(where + ": " + e);
    }
  }

  @Test
  void interruptsOfOneThreadNeverLoseACommitAndLeaveTheDatabaseUsable() throws Exception {
    String url = url(tmp.resolve("db"));
    try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (v VARCHAR(40))");
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread bystander = new Thread(() -> {
      for (int i = 0; !stop.get(); i++) {
        try {
          transaction(url, "b" + i);
        } catch (SQLException e) {
          unlessDatabaseClosed("bystander", e);
        }
      }
    });
    bystander.start();
    try {
      for (int round = 0; round < 40; round++) {
        int r = round;
        Thread victim = new Thread(() -> {
          for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
            try {
              transaction(url, "v" + r + "_" + i);
            } catch (SQLException e) {
              break; // the interrupted thread's own statement may fail
            }
          }
          Thread.currentThread().interrupt(); // a cancelled task closes its writer with the flag set
          try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            c.rollback();
          } catch (SQLException e) {
            unlessDatabaseClosed("close with the interrupt flag set", e);
          }
        });
        victim.start();
        Thread.sleep(5 + round % 20);
        victim.interrupt();
        victim.join();
        try {
          transaction(url, "check" + round); // a new connection works, reopening if H2 closed it
        } catch (SQLException e) {
          failures.add("after interrupt " + round + ": " + e);
        }
      }
    } finally {
      stop.set(true);
      bystander.join();
    }
    assertEquals(List.of(), failures);
    try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
      List<String> inDoubt = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT TRANSACTION_NAME FROM INFORMATION_SCHEMA.IN_DOUBT")) {
        while (rs.next()) {
          inDoubt.add(rs.getString(1));
        }
      }
      for (String name : inDoubt) {
        assertTrue(name.startsWith("v"), "only an interrupted thread's transaction is left prepared: " + name);
        s.execute("COMMIT TRANSACTION \"" + name + "\"");
      }
      List<String> rows = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT v FROM t")) {
        while (rs.next()) {
          rows.add(rs.getString(1));
        }
      }
      Set<String> distinct = new HashSet<>(rows);
      assertEquals(rows.size(), distinct.size(), "no row twice");
      Set<String> missing = new HashSet<>(committed);
      missing.removeAll(distinct);
      assertEquals(Set.of(), missing, "every transaction whose commit returned is in the table");
      assertTrue(committed.stream().filter(n -> n.startsWith("b")).count() > 40, "the bystander committed all along");
      s.execute("SHUTDOWN");
    }
  }
}
