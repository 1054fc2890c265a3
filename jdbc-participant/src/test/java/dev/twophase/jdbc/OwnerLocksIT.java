package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.FencedException;
import dev.twophase.FileStateLog;
import dev.twophase.crash.LogCopies;
import dev.twophase.jdbc.internal.OwnerLocks;
import dev.twophase.testing.TestContexts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A copy of a state log started beside the original shares its transaction names: the JDBC
 * participant's advisory lock on them refuses the second owner, in another session or of the same
 * epoch in this JVM, before it rolls anything back; an engine's next attempt in the same JVM takes
 * over. (H2 has no advisory locks: an embedded H2 database is open in one process only.)
 */
class OwnerLocksIT {

  @TempDir
  Path tmp;

  static Stream<TestDatabase> lockable() {
    return Stream.of(TestDatabase.postgres(), TestDatabase.mariaDb(), TestDatabase.postgresXa(), TestDatabase.mariaDbXa());
  }

  private static String coordinator() {
    return "locks" + UUID.randomUUID().toString().substring(0, 8);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lockable")
  void anotherSessionHoldingTheLockIsRefusedUntilItLetsGo(TestDatabase db) throws Exception {
    String id = coordinator();
    String prefix = TestContexts.participant(id, "db", 5).transactionNamePrefix();
    boolean postgres = db.name().startsWith("PostgreSQL");
    try (Connection other = db.plain().getConnection()) {
      other.setAutoCommit(true);
      assertTrue(query(other, postgres ? "SELECT pg_try_advisory_lock(" + OwnerLocks.POSTGRES_LOCK_CLASS + ", "
          + OwnerLocks.postgresKey(prefix) + ")" : "SELECT GET_LOCK('" + OwnerLocks.mariaDbName(prefix) + "', 0)"));
      long otherSession = number(other, postgres ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()");

      JdbcParticipant<Object> second = db.builder().get().build();
      FencedException e = assertThrows(FencedException.class, () -> second.startRecovery(TestContexts.participant(id, "db", 5)));
      assertTrue(e.getMessage().contains((postgres ? "backend pid " : "connection id ") + otherSession),
          "names the holder: " + e.getMessage());
      assertTrue(e.getMessage().contains("owner epoch 5") && e.getMessage().contains("JVM pid "), "names itself: " + e.getMessage());
      second.close();

      query(other, postgres ? "SELECT pg_advisory_unlock_all() IS NULL" : "SELECT RELEASE_ALL_LOCKS() >= 0");
      JdbcParticipant<Object> after = db.builder().get().build();
      after.startRecovery(TestContexts.participant(id, "db", 5));
      after.close();
      // after close, the lock is free again (unlocked, not left in a pooled session)
      assertTrue(query(other, postgres ? "SELECT pg_try_advisory_lock(" + OwnerLocks.POSTGRES_LOCK_CLASS + ", "
          + OwnerLocks.postgresKey(prefix) + ")" : "SELECT GET_LOCK('" + OwnerLocks.mariaDbName(prefix) + "', 0)"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lockable")
  void inOneJvmANewerEpochTakesOverAndTheSameEpochIsRefused(TestDatabase db) throws Exception {
    String id = coordinator();
    JdbcParticipant<Object> attempt1 = db.builder().get().build();
    attempt1.startRecovery(TestContexts.participant(id, "db", 3));
    JdbcParticipant<Object> attempt2 = db.builder().get().build();
    attempt2.startRecovery(TestContexts.participant(id, "db", 4));
    attempt1.close(); // the zombie's close does not give up the new owner's claim
    JdbcParticipant<Object> copy = db.builder().get().build();
    FencedException e = assertThrows(FencedException.class, () -> copy.startRecovery(TestContexts.participant(id, "db", 4)));
    assertTrue(e.getMessage().contains("owner epoch 4"), e.getMessage());
    copy.close();
    attempt2.close();
    JdbcParticipant<Object> next = db.builder().get().build();
    next.startRecovery(TestContexts.participant(id, "db", 4));
    next.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lockable")
  void twoCoordinatorsOnCopiesOfOneLogCannotBothStart(TestDatabase db) throws Exception {
    String id = coordinator();
    Path original = tmp.resolve("log");
    try (FileStateLog log = FileStateLog.open(original);
        Coordinator c = Coordinator.builder(id, log).participant("db", db.builder().get().build()).build()) {
      c.checkpoint();
    }
    Path copy = tmp.resolve("log-copy");
    LogCopies.copy(original, copy);
    try (FileStateLog log = FileStateLog.open(original);
        Coordinator running = Coordinator.builder(id, log).participant("db", db.builder().get().build()).build()) {
      try (FileStateLog copied = FileStateLog.open(copy)) {
        JdbcParticipant<Object> second = db.builder().get().build();
        FencedException e = assertThrows(FencedException.class,
            () -> Coordinator.builder(id, copied).participant("db", second).build());
        assertTrue(e.getMessage().contains("copies of one state log"), e.getMessage());
      }
      running.checkpoint().awaitCommitted(Duration.ofSeconds(30));
    }
    assertEquals(List.of(), db.prepared().get().stream().filter(n -> n.contains(id)).toList(), "nothing left prepared");
  }

  private static boolean query(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  private static long number(Connection c, String sql) throws Exception {
    try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
