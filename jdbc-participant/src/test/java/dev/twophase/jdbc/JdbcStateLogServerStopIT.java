package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.StateLog;
import dev.twophase.jdbc.servers.PostgresServer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL server of its own, stopped while an append waits in the database: the append's
 * outcome is unknown, and closing the log afterwards (its release fails) leaves no thread and no
 * connection behind.
 */
class JdbcStateLogServerStopIT {

  @Test
  void aServerStoppedMidAppendGivesAnUnknownOutcomeAndTheLogClosesCleanly() throws Exception {
    PostgresServer pg = PostgresServer.start(8, "statelog-stop");
    boolean stopped = false;
    try {
      CountingDataSource ds = new CountingDataSource(pg.dataSource());
      JdbcStateLog log = JdbcStateLog.builder(ds).timeout(Duration.ofSeconds(10)).build();
      StateLog.CoordinatorLog c = log.open("p0");
      c.appendState(1, new byte[] {1});
      RowLock held = new RowLock(pg.dataSource(), "twophase_state_log", "p0");
      CompletableFuture<Void> append =
          CompletableFuture.runAsync(() -> c.appendState(2, new byte[] {2}));
      Thread.sleep(300); // the writer waits for the row
      pg.close();
      stopped = true;
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> append.get(30, TimeUnit.SECONDS));
      FatalTwoPhaseException f = assertInstanceOf(FatalTwoPhaseException.class, e.getCause());
      assertTrue(f.getMessage().contains("whether it was committed is unknown"), f.getMessage());
      try {
        held.close();
      } catch (SQLException expected) {
        // the server is gone
      }
      log.close(); // the release fails and is logged
      assertFalse(log.writerThread().isAlive());
      assertEquals(0, ds.open(), "no connection left open");
    } finally {
      if (!stopped) {
        pg.close();
      }
    }
  }
}
