package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The writer of {@link JdbcStateLog}: group commit, and a fenced write in a batch. */
class JdbcStateLogWriterIT {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void concurrentAppendsOfManyCoordinatorsShareTransactions(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    int coordinators = 16;
    int appends = 25;
    ExecutorService pool = Executors.newFixedThreadPool(coordinators);
    try (JdbcStateLog log = JdbcStateLog.builder(db.plain()).table(table).build()) {
      List<StateLog.CoordinatorLog> views = new ArrayList<>();
      for (int i = 0; i < coordinators; i++) {
        views.add(log.open("c" + i));
      }
      JdbcStateLogStats before = log.stats();
      long start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (StateLog.CoordinatorLog v : views) {
        done.add(pool.submit(() -> {
          for (long cp = 1; cp <= appends; cp++) {
            v.appendState(cp, bytes(v.coordinatorId() + "@" + cp));
            v.appendCompletion(cp);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      JdbcStateLogStats stats = log.stats().minus(before);
      System.out.printf("[group commit] %s: %d appends of %d coordinators in %d ms, %s%n", db,
          stats.stateAppends(), coordinators, (System.nanoTime() - start) / 1_000_000, stats);
      assertEquals((long) coordinators * appends, stats.stateAppends());
      assertTrue(stats.appendsPerTransaction() > 1.5,
          "appends share transactions: " + stats);
      for (StateLog.CoordinatorLog v : views) {
        v.close();
      }
      try (JdbcStateLog again = JdbcStateLog.builder(db.plain()).table(table).build()) {
        for (int i = 0; i < coordinators; i++) {
          StateLog.CoordinatorLog v = again.open("c" + i);
          assertEquals(new StoredState(appends, bytes("c" + i + "@" + appends)), v.lastState());
          assertEquals(appends, v.lastCompletedCheckpointId());
        }
      }
    } finally {
      pool.shutdownNow();
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aFencedCoordinatorInABatchDoesNotFailTheOthers(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (JdbcStateLog log = JdbcStateLog.builder(db.plain()).table(table).ownerName("a").build();
        JdbcStateLog thief = JdbcStateLog.builder(db.plain()).table(table).ownerName("b")
            .takeOver(true).build()) {
      StateLog.CoordinatorLog x = log.open("x");
      StateLog.CoordinatorLog y = log.open("y");
      StateLog.CoordinatorLog z = log.open("z");
      thief.open("x");
      JdbcStateLogStats before = log.stats();
      Future<?> zAppend;
      Future<?> xAppend;
      Future<?> yAppend;
      RowLock held = new RowLock(db.plain(), table, "z");
      try (held) {
        zAppend = pool.submit(() -> {
          z.appendState(1, bytes("z"));
          return null;
        });
        Thread.sleep(300); // the writer now waits for z's row
        xAppend = pool.submit(() -> {
          x.appendState(1, bytes("x"));
          return null;
        });
        yAppend = pool.submit(() -> {
          y.appendState(1, bytes("y"));
          return null;
        });
        Thread.sleep(300); // both queued behind z's transaction
      }
      zAppend.get(30, TimeUnit.SECONDS);
      yAppend.get(30, TimeUnit.SECONDS);
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> xAppend.get(30, TimeUnit.SECONDS));
      assertInstanceOf(FencedException.class, e.getCause());
      JdbcStateLogStats stats = log.stats().minus(before);
      assertEquals(2, stats.stateAppends());
      assertEquals(1, stats.fencedAppends());
      assertEquals(2, stats.transactions(), "x and y went in one transaction: " + stats);
      assertEquals("b", StateLogTables.holder(db.plain(), table, "x"));
    } finally {
      pool.shutdownNow();
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void closingTheLogWaitsForAnAppendInProgressThenReleases(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    try {
      JdbcStateLog log = JdbcStateLog.builder(db.plain()).table(table).build();
      StateLog.CoordinatorLog z = log.open("z");
      CompletableFuture<Void> append;
      CompletableFuture<Void> close;
      RowLock held = new RowLock(db.plain(), table, "z");
      try (held) {
        append = CompletableFuture.runAsync(() -> z.appendState(1, bytes("z")));
        Thread.sleep(300);
        close = CompletableFuture.runAsync(log::close);
        Thread.sleep(300);
        assertFalse(append.isDone(), "the append waits for the row");
        assertFalse(close.isDone(), "the close waits for the append");
      }
      append.get(30, TimeUnit.SECONDS);
      close.get(30, TimeUnit.SECONDS);
      assertFalse(log.writerThread().isAlive());
      assertNull(StateLogTables.holder(db.plain(), table, "z"));
      try (JdbcStateLog next = JdbcStateLog.builder(db.plain()).table(table).build()) {
        assertEquals(new StoredState(1, bytes("z")), next.open("z").lastState());
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void anInterruptedCallerAppendsAndKeepsItsFlag(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    try (JdbcStateLog log = JdbcStateLog.builder(db.plain()).table(table).build()) {
      StateLog.CoordinatorLog c = log.open("p0");
      Thread.currentThread().interrupt();
      try {
        c.appendState(1, bytes("one"));
        assertTrue(Thread.currentThread().isInterrupted(), "the flag is kept");
      } finally {
        Thread.interrupted();
      }
      c.close();
      assertEquals(1, log.stats().stateAppends());
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aCommitWhoseAnswerIsLostIsReportedUnknownAndTheNextOwnerReadsWhatCommitted(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    CountingDataSource ds = new CountingDataSource(db.plain());
    try {
      try (JdbcStateLog log = JdbcStateLog.builder(ds).table(table).ownerName("a").build()) {
        StateLog.CoordinatorLog c = log.open("p0");
        c.appendState(1, bytes("one"));
        ds.failNextCommitAfterCommitting(new java.sql.SQLException("connection reset", "08006"));
        FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
            () -> c.appendState(2, bytes("two")));
        assertTrue(e.getMessage().contains("the decision of checkpoint 2 is unknown"),
            e.getMessage());
        assertEquals(1, log.stats().failedTransactions());
        assertThrows(FatalTwoPhaseException.class, () -> c.appendState(3, bytes("three")),
            "never retried: the view is unusable");
      }
      try (JdbcStateLog next = JdbcStateLog.builder(db.plain()).table(table).ownerName("a")
          .build()) {
        assertEquals(new StoredState(2, bytes("two")), next.open("p0").lastState(),
            "the commit did happen: recovery reads it");
      }
      assertEquals(0, ds.open());
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  /** Kills the writer's session while its append waits for a row lock. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#servers")
  void aSessionKilledDuringAnAppendLeavesTheOutcomeUnknownAndNothingBehind(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    CountingDataSource ds = new CountingDataSource(db.plain());
    try {
      JdbcStateLog log = JdbcStateLog.builder(ds).table(table).build();
      StateLog.CoordinatorLog z = log.open("z");
      StateLog.CoordinatorLog y = log.open("y");
      CompletableFuture<Void> append;
      RowLock held = new RowLock(db.plain(), table, "z");
      try (held) {
        append = CompletableFuture.runAsync(() -> z.appendState(1, bytes("z")));
        Thread.sleep(300);
        String kill = db.name().equals("PostgreSQL")
            ? "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'UPDATE "
                + table + " SET checkpoint_id%' AND pid <> pg_backend_pid()"
            : null;
        if (kill != null) {
          assertEquals(1, db.count("SELECT COUNT(*) FROM (" + kill + ") k"));
        } else {
          long id = db.count("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE "
              + "'UPDATE " + table + " SET checkpoint_id%'");
          db.execute("KILL " + id);
        }
        ExecutionException e = assertThrows(ExecutionException.class,
            () -> append.get(30, TimeUnit.SECONDS));
        FatalTwoPhaseException f = assertInstanceOf(FatalTwoPhaseException.class, e.getCause());
        String m = f.getMessage();
        assertTrue(m.contains("coordinator 'z' (epoch 1) in state log table " + table), m);
        assertTrue(m.contains("whether it was committed is unknown"), m);
        assertTrue(m.contains("must stop and recover"), m);
        assertEquals(1, f.checkpointId().getAsLong());
      }
      FatalTwoPhaseException unusable = assertThrows(FatalTwoPhaseException.class,
          () -> z.appendState(2, bytes("z2")));
      assertTrue(unusable.getMessage().contains("unknown"), unusable.getMessage());
      y.appendState(1, bytes("y")); // a new session for the next batch
      log.close();
      assertFalse(log.writerThread().isAlive());
      assertEquals(0, ds.open(), "the killed session was discarded, the others given back");
      assertNull(StateLogTables.holder(db.plain(), table, "y"));
    } finally {
      StateLogTables.drop(db, table);
    }
  }
}
