package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLogCorruptedException;
import dev.twophase.jdbc.servers.H2Database;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.sql.SQLException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What {@link JdbcStateLog.Builder#build()} refuses: a table of another shape, a missing table it
 * may not create, server settings under which a commit is not durable or a state does not fit, a
 * damaged or missing log id. Each message names the table or the setting and the fix.
 */
class JdbcStateLogSetupIT {

  private static JdbcStateLog.Builder builder(TestDatabase db, String table) {
    return JdbcStateLog.builder(db.plain()).table(table);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aTableOfAnotherShapeIsRefusedWithWhatIsWrongAndTheFix(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    db.execute("CREATE TABLE " + table + " (id INTEGER NOT NULL PRIMARY KEY, note VARCHAR(10))");
    try {
      for (boolean create : new boolean[] {true, false}) {
        DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
            () -> builder(db, table).createTable(create).build());
        String m = e.getMessage();
        assertTrue(m.contains("state log table " + table + " on " + db.name()
            + " is not a state log table: no column coordinator_id, no column epoch"), m);
        assertTrue(m.contains("columns found: id "), m);
        assertTrue(m.contains("expected: coordinator_id "), m);
        assertTrue(m.contains("JdbcStateLog.Builder#table(name)"), m);
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void narrowOrMistypedColumnsAreNamed(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    String payload = switch (db.name()) {
      case "H2" -> "VARBINARY(100)";
      case "MariaDB" -> "MEDIUMBLOB";
      default -> "VARCHAR(10)";
    };
    db.execute("CREATE TABLE " + table + " (coordinator_id VARCHAR(50) NOT NULL PRIMARY KEY, "
        + "epoch VARCHAR(20) NOT NULL, holder VARCHAR(255) NOT NULL, claimed_at_ms BIGINT, "
        + "checkpoint_id BIGINT, state_epoch BIGINT, payload " + payload + ", checksum BIGINT, "
        + "completed BIGINT NOT NULL)");
    try {
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> builder(db, table).createTable(false).build());
      String m = e.getMessage();
      assertTrue(m.contains("coordinator_id holds 50 characters, fewer than 255"), m);
      assertTrue(m.contains("epoch is not a 64-bit integer column"), m);
      assertTrue(m.contains("holder is NOT NULL, but the log writes NULL into it"), m);
      assertTrue(m.contains(db.name().equals("PostgreSQL") ? "payload is not a binary column"
          : "fewer than 16777216 (StateLog.MAX_STATE_BYTES)"), m);
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aMissingTableIsRefusedWhenNotToBeCreatedAndTheDocumentedOneBuilds(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    try {
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> builder(db, table).createTable(false).build());
      String m = e.getMessage();
      assertTrue(m.contains("state log table " + table + " on " + db.name() + " cannot be read"), m);
      assertTrue(m.contains("createTable(true)"), m);
      assertTrue(m.contains("docs/state-log-jdbc.md"), m);
      try (JdbcStateLog log = builder(db, table).build()) {
        log.open("p0").appendState(1, new byte[] {1});
      }
      try (JdbcStateLog log = builder(db, table).createTable(false).build()) {
        assertEquals(1, log.open("p0").lastState().checkpointId());
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aDamagedOrMissingLogIdIsReportedNotReplaced(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    try {
      try (JdbcStateLog log = builder(db, table).build()) {
        log.open("p0").close();
      }
      db.execute("UPDATE " + table + " SET checksum = checksum + 1 WHERE coordinator_id = ''");
      StateLogCorruptedException damaged = assertThrows(StateLogCorruptedException.class,
          () -> builder(db, table).build());
      assertTrue(damaged.getMessage().contains("state log table " + table + " on " + db.name()
          + ": the log id row (the empty coordinator_id) is damaged"), damaged.getMessage());
      db.execute("DELETE FROM " + table + " WHERE coordinator_id = ''");
      StateLogCorruptedException missing = assertThrows(StateLogCorruptedException.class,
          () -> builder(db, table).build());
      assertTrue(missing.getMessage().contains("holds 1 coordinator rows but no log id"),
          missing.getMessage());
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @Test
  void postgresWithSynchronousCommitOffIsRefused() {
    PostgresServer pg = PostgresServer.shared();
    PGSimpleDataSource ds = (PGSimpleDataSource) pg.dataSource();
    ds.setOptions("-c synchronous_commit=off");
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
        () -> JdbcStateLog.builder(ds).table(StateLogTables.fresh()).build());
    assertTrue(e.getMessage().contains("PostgreSQL has synchronous_commit = off"), e.getMessage());
    assertTrue(e.getMessage().contains("Set synchronous_commit to on"), e.getMessage());
  }

  @Test
  void postgresSessionsWithSynchronousCommitOffAreRefusedForClaimsAndAppends() throws Exception {
    PostgresServer pg = PostgresServer.shared();
    PGSimpleDataSource ds = (PGSimpleDataSource) pg.dataSource();
    String table = StateLogTables.fresh();
    try (JdbcStateLog log = JdbcStateLog.builder(ds).table(table).build()) {
      var c = log.open("p0");
      ds.setOptions("-c synchronous_commit=off"); // for every session from now on
      DatabaseSetupException claim = assertThrows(DatabaseSetupException.class,
          () -> log.open("p1"));
      assertTrue(claim.getMessage().contains("synchronous_commit = off"), claim.getMessage());
      DatabaseSetupException append = assertThrows(DatabaseSetupException.class,
          () -> c.appendState(1, new byte[] {1})); // the writer's first session
      assertTrue(append.getMessage().contains("synchronous_commit = off"), append.getMessage());
      ds.setOptions(null);
      c.appendState(1, new byte[] {1}); // nothing was sent: the view is usable
    } finally {
      StateLogTables.drop(TestDatabase.postgres(), table);
    }
  }

  @Test
  void mariaDbWithASmallPacketOrALazyRedoFlushIsRefused() throws Exception {
    MariaDbServer m = MariaDbServer.shared();
    TestDatabase db = TestDatabase.mariaDb();
    try {
      db.execute("SET GLOBAL max_allowed_packet = 16777216");
      DatabaseSetupException small = assertThrows(DatabaseSetupException.class,
          () -> JdbcStateLog.builder(m.dataSource()).table(StateLogTables.fresh()).build());
      assertTrue(small.getMessage().contains("MariaDB has max_allowed_packet = 16777216 bytes"),
          small.getMessage());
      assertTrue(small.getMessage().contains("Set max_allowed_packet = 64M"), small.getMessage());
    } finally {
      db.execute("SET GLOBAL max_allowed_packet = 67108864");
    }
    try {
      db.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 2");
      DatabaseSetupException lazy = assertThrows(DatabaseSetupException.class,
          () -> JdbcStateLog.builder(m.dataSource()).table(StateLogTables.fresh()).build());
      assertTrue(lazy.getMessage().contains("MariaDB has innodb_flush_log_at_trx_commit = 2"),
          lazy.getMessage());
      assertTrue(lazy.getMessage().contains("Set innodb_flush_log_at_trx_commit = 1"),
          lazy.getMessage());
    } finally {
      db.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
    }
  }

  @Test
  void mariaDbRefusesAKeyThatComparesCaseOrPaddingAwayAndANonTransactionalEngine()
      throws Exception {
    TestDatabase db = TestDatabase.mariaDb();
    String table = StateLogTables.fresh();
    String columns = " (coordinator_id VARCHAR(255) CHARACTER SET latin1 COLLATE "
        + "latin1_swedish_ci NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL, holder VARCHAR(255), "
        + "claimed_at_ms BIGINT, checkpoint_id BIGINT, state_epoch BIGINT, payload LONGBLOB, "
        + "checksum BIGINT, completed BIGINT NOT NULL) ENGINE=MyISAM";
    db.execute("CREATE TABLE " + table + columns);
    try {
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> builder(db, table).build());
      String m = e.getMessage();
      assertTrue(m.contains("its engine is MyISAM, not InnoDB"), m);
      assertTrue(m.contains("coordinator_id has the collation latin1_swedish_ci"), m);
      assertTrue(m.contains("utf8mb4_nopad_bin"), m);
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @Test
  void h2InMemoryOrWithAWriteDelayIsRefused() throws Exception {
    JdbcDataSource memory = new JdbcDataSource();
    memory.setURL("jdbc:h2:mem:statelog;DB_CLOSE_DELAY=-1");
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
        () -> JdbcStateLog.builder(memory).build());
    assertTrue(e.getMessage().contains("H2 database is in memory"), e.getMessage());
    JdbcDataSource delayed = new JdbcDataSource();
    delayed.setURL("jdbc:h2:file:" + H2Database.create("statelog-delay").file() + ";WRITE_DELAY=500");
    e = assertThrows(DatabaseSetupException.class, () -> JdbcStateLog.builder(delayed).build());
    assertTrue(e.getMessage().contains("WRITE_DELAY = 500 ms"), e.getMessage());
  }

  @Test
  void aTableNameThatIsNoPlainIdentifierIsRefusedAtOnce() throws SQLException {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JdbcStateLog.builder(TestDatabase.h2Dialect().plain()).table("log; DROP TABLE x"));
    assertTrue(e.getMessage().contains("must be a plain SQL identifier"), e.getMessage());
  }
}
