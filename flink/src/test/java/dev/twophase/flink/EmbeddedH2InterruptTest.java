package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 URL that flink.md gives survives what a Flink cancellation does to a task's
 * thread: a thread that runs prepared transactions (as the JDBC participant does) is interrupted in
 * the middle of them, again and again, and goes on closing its connection with the interrupt flag
 * set. Another thread's transactions, running all along, never fail, and a fresh connection works
 * after every interrupt. With {@code jdbc:h2:file:...;WRITE_DELAY=0} the interrupt closes H2's file
 * channel ({@code ClosedByInterruptException}) and with it the database for every session (90098,
 * 90121, and with {@code DB_CLOSE_DELAY=-1} also 90020 until the JVM ends).
 */
class EmbeddedH2InterruptTest {

  /** The URL of flink.md, for a database file {@code path}. */
  static String url(Path path) {
    return "jdbc:h2:async:" + path.toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_DELAY=-1";
  }

  @TempDir
  Path tmp;

  private static void transaction(String url, String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO t VALUES ('" + name + "')");
        s.execute("PREPARE COMMIT \"" + name + "\"");
        s.execute("COMMIT TRANSACTION \"" + name + "\"");
      }
    }
  }

  @Test
  void interruptsOfOneThreadLeaveTheDatabaseUsable() throws Exception {
    String url = url(tmp.resolve("db"));
    try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (v VARCHAR(40))");
    }
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
    Thread bystander = new Thread(() -> {
      for (int i = 0; !stop.get(); i++) {
        try {
          transaction(url, "b" + i);
        } catch (SQLException e) {
          failures.add("bystander: " + e);
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
              break; // the interrupted thread's own statement may fail; the database must not
            }
          }
          Thread.currentThread().interrupt(); // a cancelled task closes its writer with the flag set
          try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            c.rollback();
          } catch (SQLException e) {
            failures.add("close with the interrupt flag set: " + e);
          }
        });
        victim.start();
        Thread.sleep(5 + round % 20);
        victim.interrupt();
        victim.join();
        try {
          transaction(url, "check" + round);
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
      assertFalse(s.executeQuery("SELECT * FROM INFORMATION_SCHEMA.IN_DOUBT").next(), "nothing left prepared");
      s.execute("SHUTDOWN");
    }
  }
}
