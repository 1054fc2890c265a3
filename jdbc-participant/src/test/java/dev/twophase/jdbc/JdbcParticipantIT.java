package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.RecordWriter;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.TwoPhaseException;
import dev.twophase.jdbc.servers.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The participant under a real coordinator, on PostgreSQL: what the application sees. */
class JdbcParticipantIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path tmp;
  private DataSource ds;
  private String id;

  @BeforeEach
  void setUp() throws Exception {
    PostgresServer.shared().rollBackLeftovers();
    ds = PostgresServer.shared().dataSource();
    id = "it" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    execute("CREATE TABLE IF NOT EXISTS participant_rows (coordinator VARCHAR(40) NOT NULL, n BIGINT NOT NULL)");
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long rows() throws SQLException {
    return count("SELECT COUNT(*) FROM participant_rows WHERE coordinator = '" + id + "'");
  }

  private long markers() throws SQLException {
    return count("SELECT COUNT(*) FROM twophase_markers WHERE name LIKE '" + id + "-%'");
  }

  private void insert(JdbcParticipant<?> db, Coordinator coordinator, long n) throws SQLException {
    Connection c = db.connection(coordinator.currentTransaction(db));
    try (PreparedStatement s = c.prepareStatement("INSERT INTO participant_rows VALUES (?, ?)")) {
      s.setString(1, id);
      s.setLong(2, n);
      s.executeUpdate();
    }
  }

  @Test
  void rowsShowAtCommitAndAnEmptyCheckpointPreparesNothing() throws Exception {
    JdbcParticipant<Object> db = JdbcParticipant.builder(ds).build();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(id, log).participant("db", db).build()) {
      insert(db, coordinator, 1);
      insert(db, coordinator, 2);
      assertEquals(0, rows(), "nothing visible before the checkpoint commits");
      coordinator.checkpoint().awaitCommitted(WAIT);
      assertEquals(2, rows());
      JdbcTransaction empty = coordinator.currentTransaction(db);
      coordinator.checkpoint().awaitCommitted(WAIT);
      assertEquals(0, count("SELECT COUNT(*) FROM twophase_markers WHERE name = '" + empty.name() + "'"),
          "an empty transaction writes no marker row");
      assertEquals(List.of(), PostgresServer.shared().preparedTransactions());
      for (int repeat = 0; repeat < 3; repeat++) { // a no-op each time: nothing is kept per empty handle
        assertEquals(CommitOutcome.COMMITTED, db.commit(empty.asEmpty()), "repeated commit of an empty transaction");
      }
    }
  }

  @Test
  void theConnectionRefusesWhatBelongsToTheParticipantAndExpiresAtTheCheckpoint() throws Exception {
    JdbcParticipant<Object> db = JdbcParticipant.builder(ds).build();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(id, log).participant("db", db).build()) {
      Connection c = db.connection(coordinator.currentTransaction(db));
      for (var call : List.<SqlCall>of(c::commit, c::rollback, () -> c.setAutoCommit(true), c::close)) {
        SQLException e = assertThrows(SQLException.class, call::run);
        assertTrue(e.getMessage().contains("is the participant's job"), e.getMessage());
      }
      c.setSavepoint().getSavepointId(); // savepoints are the application's
      insert(db, coordinator, 1);
      coordinator.checkpoint().awaitCommitted(WAIT);
      SQLException stale = assertThrows(SQLException.class, () -> c.prepareStatement("SELECT 1"));
      assertEquals("08003", stale.getSQLState());
      assertTrue(stale.getMessage().contains("read currentTransaction(participant) again"), stale.getMessage());
      assertTrue(c.isClosed());
      JdbcTransaction old = coordinator.currentTransaction(db);
      coordinator.checkpoint();
      FatalTwoPhaseException gone = assertThrows(FatalTwoPhaseException.class, () -> db.connection(old));
      assertTrue(gone.getMessage().contains("not open in this participant"), gone.getMessage());
      assertEquals(1, rows());
    }
  }

  /** Misuse gets what the file and Kafka participants give for it: a fatal error that says what to fix. */
  @Test
  void aHandleOfAnotherParticipantAndACallAfterCloseAreRefused() throws Exception {
    JdbcParticipant<Object> db = JdbcParticipant.builder(ds).build();
    JdbcParticipant<Object> other = JdbcParticipant.builder(ds).name("other").build();
    JdbcTransaction current;
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(id, log).participant("db", db).build()) {
      current = coordinator.currentTransaction(db);
      FatalTwoPhaseException foreign = assertThrows(FatalTwoPhaseException.class, () -> other.connection(current));
      assertTrue(foreign.getMessage().contains("begun by another participant"), foreign.getMessage());
      RecordWriter<Object> noInsert = db.writerFor(current);
      FatalTwoPhaseException writer = assertThrows(FatalTwoPhaseException.class, () -> noInsert.write("x"));
      assertTrue(writer.getMessage().contains("insert(sql, binder)"), writer.getMessage());
    } finally {
      other.close();
    }
    FatalTwoPhaseException closed = assertThrows(FatalTwoPhaseException.class, () -> db.connection(current));
    assertTrue(closed.getMessage().contains("the participant was closed"), closed.getMessage());
  }

  @FunctionalInterface
  interface SqlCall {
    void run() throws SQLException;
  }

  @Test
  void aRecordTheBinderRefusesFailsAloneAndTheOthersCommit() throws Exception {
    JdbcParticipant<Long> db = JdbcParticipant.builder(ds)
        .<Long>insert("INSERT INTO participant_rows VALUES (?, ?)", (s, n) -> {
          if (n < 0) {
            throw new SQLException("negative: " + n);
          }
          s.setString(1, id);
          s.setLong(2, n);
        }).batchSize(2).build();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(id, log).participant("db", db).build()) {
      Output<Long> out = coordinator.output(db);
      out.write(1L);
      assertThrows(TwoPhaseException.class, () -> out.write(-1L));
      out.write(2L);
      out.write(3L);
      coordinator.checkpoint().awaitCommitted(WAIT);
      assertEquals(3, rows());
    }
  }

  /**
   * Marker rows go when the coordinator retires their transactions, and those of an earlier
   * incarnation at the next start.
   */
  @Test
  void markerRowsAreDeletedOnceTheirTransactionsAreRetired() throws Exception {
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"))) {
      JdbcParticipant<Object> db = JdbcParticipant.builder(ds).markerDeleteBatch(5).build();
      Coordinator first = Coordinator.builder(id, log).participant("db", db).build();
      for (int i = 0; i < 20; i++) {
        insert(db, first, i);
        first.checkpoint().awaitCommitted(WAIT);
      }
      assertEquals(20, rows());
      long left = markers();
      assertTrue(left <= 5 + 3, "20 checkpoints committed, deleted in batches of 5, yet " + left
          + " marker rows remain");
      insert(db, first, 20);
      first.checkpoint(); // decided, maybe not yet retired: its marker may stay
      first.close();
      assertTrue(markers() >= 0);

      JdbcParticipant<Object> again = JdbcParticipant.builder(ds).build();
      try (Coordinator second = Coordinator.builder(id, log).participant("db", again).build()) {
        insert(again, second, 21);
        second.checkpoint().awaitCommitted(WAIT);
        insert(again, second, 22);
        second.checkpoint().awaitCommitted(WAIT);
        long earlier = count("SELECT COUNT(*) FROM twophase_markers WHERE name LIKE '" + id + "-%' AND epoch < "
            + second.ownerEpoch());
        assertEquals(0, earlier, "markers of the first incarnation after the second started");
      }
      assertEquals(23, rows());
    }
  }

  @Test
  void aMarkerTableThatCannotBeReadFailsTheBuildWithTheFix() {
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
        () -> JdbcParticipant.builder(ds).markerTable("no_such_schema.markers").build());
    assertTrue(e.getMessage().contains("no_such_schema.markers"), e.getMessage());
    assertTrue(e.getMessage().contains("SELECT, INSERT and DELETE"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> JdbcParticipant.builder(ds).markerTable("x; DROP TABLE y").build());
  }

  @Test
  void participantsOfTwoDatabasesCommitTogether() throws Exception {
    List<JdbcParticipant<Object>> dbs = new ArrayList<>();
    dbs.add(JdbcParticipant.builder(ds).build());
    dbs.add(JdbcParticipant.builder(ds).name("second").build());
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(id, log)
            .participant("a", dbs.get(0)).participant("b", dbs.get(1)).build()) {
      insert(dbs.get(0), coordinator, 1);
      insert(dbs.get(1), coordinator, 2);
      coordinator.checkpoint().awaitCommitted(WAIT);
      assertEquals(2, rows());
    }
  }
}
