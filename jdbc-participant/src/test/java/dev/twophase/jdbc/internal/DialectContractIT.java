package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.TransactionNames;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every dialect must do, against a real database: prepare keeps rows invisible and durable,
 * commit and rollback on the branch's session or from a new one, "not prepared" only when the
 * database lists nothing, markers that tell a commit from a rollback, and no connection with an
 * unfinished transaction handed back to a pool.
 */
abstract class DialectContractIT {

  /** The database the dialect works on, reached without the dialect (the checker's view). */
  protected abstract DataSource plainDataSource();

  /** The dialect under test, over the same database. */
  protected abstract Dialect dialect(DataSource tracked);

  /** Rolls back every prepared transaction earlier tests left behind. */
  protected abstract void rollBackLeftovers() throws Exception;

  /** The table name for this class's rows. */
  protected abstract String table();

  /** Whether the dialect takes its connections from the tracked data source (XA ones do not). */
  protected boolean usesTrackedDataSource() {
    return true;
  }

  protected final MarkerTable markers = new MarkerTable(MarkerTable.DEFAULT_NAME);
  protected TrackingDataSource tracked;
  protected Dialect dialect;
  protected String run;

  @BeforeEach
  void setUpDatabase() throws Exception {
    rollBackLeftovers();
    tracked = new TrackingDataSource(plainDataSource());
    dialect = dialect(tracked);
    run = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute("CREATE TABLE IF NOT EXISTS " + table() + " (id VARCHAR(100) NOT NULL PRIMARY KEY)");
      markers.createIfAbsent(c);
    }
    dialect.checkServer();
  }

  protected String name(int i) {
    return "dialect-" + run + "-1-" + i;
  }

  /** Begins {@code name}, inserts {@code name} as a row and its marker, prepares it. */
  protected Branch prepared(String name) throws SQLException {
    Branch b = dialect.begin(name);
    insertRow(b.connection(), name);
    b.prepare(markers.insertSql(name, "dialect-" + run + "-", 1));
    return b;
  }

  protected void insertRow(Connection c, String id) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table() + " (id) VALUES (?)")) {
      s.setString(1, id);
      s.executeUpdate();
    }
  }

  protected List<String> visibleRows() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = plainDataSource().getConnection();
        PreparedStatement s = c.prepareStatement(
            "SELECT id FROM " + table() + " WHERE id LIKE ? ORDER BY id")) {
      s.setString(1, "dialect-" + run + "-%");
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString(1));
        }
      }
    }
    return rows;
  }

  protected boolean marker(String name) throws SQLException {
    try (Connection c = plainDataSource().getConnection()) {
      return markers.exists(c, name);
    }
  }

  protected boolean listed(String name) throws SQLException {
    return dialect.preparedNames().contains(name);
  }

  @Test
  void preparedRowsStayInvisibleUntilCommittedOnTheSameSession() throws Exception {
    Branch b = prepared(name(1));
    assertTrue(b.isPrepared());
    assertEquals(List.of(), visibleRows(), "prepared rows are invisible");
    assertTrue(listed(name(1)), "the database lists the prepared transaction");
    assertEquals(Resolution.DONE, b.commit());
    b.release();
    assertEquals(List.of(name(1)), visibleRows());
    assertFalse(listed(name(1)));
    assertTrue(marker(name(1)), "the marker committed with the rows");
    if (usesTrackedDataSource()) {
      assertEquals(0, tracked.aborted(), "a finished branch's connection goes back to the pool");
    }
  }

  @Test
  void aPreparedTransactionOutlivesItsSessionAndCommitsFromAnother() throws Exception {
    Branch b = prepared(name(1));
    b.release(); // as if the process died: the session ends, the prepared transaction stays
    if (usesTrackedDataSource()) {
      assertEquals(1, tracked.aborted(), "a connection holding a prepared transaction is closed for good");
    }
    assertTrue(listed(name(1)), "prepared transactions survive the end of their session");
    assertEquals(Resolution.DONE, dialect.commitRecovered(name(1)));
    assertEquals(List.of(name(1)), visibleRows());
    assertEquals(Resolution.NOT_PREPARED, dialect.commitRecovered(name(1)), "a repeat finds nothing");
    assertTrue(marker(name(1)), "... and the marker proves it committed");
  }

  @Test
  void rollbackOfAPreparedTransactionLeavesNoRowAndNoMarker() throws Exception {
    Branch b = prepared(name(1));
    assertEquals(Resolution.DONE, b.rollback());
    b.release();
    Branch c = prepared(name(2));
    c.release();
    assertEquals(Resolution.DONE, dialect.rollbackRecovered(name(2)));
    assertEquals(Resolution.NOT_PREPARED, dialect.rollbackRecovered(name(2)));
    assertEquals(Resolution.NOT_PREPARED, dialect.commitRecovered(name(2)));
    assertEquals(List.of(), visibleRows());
    assertFalse(marker(name(1)) || marker(name(2)), "no marker: the commit that finds nothing reports LOST");
    assertFalse(listed(name(1)) || listed(name(2)));
  }

  @Test
  void rollbackBeforePrepareLeavesNothing() throws Exception {
    Branch b = dialect.begin(name(1));
    insertRow(b.connection(), name(1));
    assertEquals(Resolution.DONE, b.rollback());
    b.release();
    assertEquals(List.of(), visibleRows());
    assertFalse(listed(name(1)));
  }

  @Test
  void anOpenTransactionDiesWithItsSession() throws Exception {
    Branch b = dialect.begin(name(1));
    insertRow(b.connection(), name(1));
    b.release();
    if (usesTrackedDataSource()) {
      assertEquals(1, tracked.aborted(), "an open transaction's connection is closed for good");
    }
    assertEquals(Resolution.NOT_PREPARED, dialect.rollbackRecovered(name(1)));
    assertEquals(List.of(), visibleRows());
  }

  @Test
  void aNameTheDatabaseNeverSawIsNotPrepared() throws Exception {
    assertEquals(Resolution.NOT_PREPARED, dialect.commitRecovered(name(9)));
    assertEquals(Resolution.NOT_PREPARED, dialect.rollbackRecovered(name(9)));
  }

  @Test
  void theLongestNameWithinTheLimitWorksAndTheListingReturnsItExactly() throws Exception {
    String prefix = "c" + run + "x".repeat(150) + "-p-";
    String name = BranchNames.of(prefix, prefix + "123456789-987654321", dialect.maxNameBytes());
    assertTrue(name.length() <= dialect.maxNameBytes(), name);
    Branch b = dialect.begin(name);
    insertRow(b.connection(), "dialect-" + run + "-long");
    b.prepare(markers.insertSql(name, "o", 1));
    assertTrue(listed(name), "listed as " + dialect.preparedNames());
    assertEquals(prefix + "123456789-987654321", TransactionNames.unshorten(prefix, name));
    b.release();
    assertEquals(Resolution.DONE, dialect.commitRecovered(name));
    assertEquals(List.of("dialect-" + run + "-long"), visibleRows());
    try (Connection c = plainDataSource().getConnection()) {
      assertEquals(1, markers.delete(c, List.of(name)));
    }
  }

  @Test
  void markersOfEarlierIncarnationsGoAndTheCurrentOnesStay() throws Exception {
    String owner = "m" + run + "-";
    try (Connection c = dialect.autoCommitConnection()) {
      for (int epoch = 1; epoch <= 3; epoch++) {
        Branch b = dialect.begin(owner + epoch + "-0");
        b.prepare(markers.insertSql(owner + epoch + "-0", owner, epoch));
        b.commit();
        b.release();
      }
      assertEquals(2, markers.deleteEarlierEpochs(c, owner, 3));
      assertTrue(markers.exists(c, owner + "3-0"));
      assertEquals(1, markers.delete(c, List.of(owner + "3-0", owner + "9-9")));
    }
  }

  @Test
  void aBranchRefusesStepsOutOfOrder() throws Exception {
    Branch b = dialect.begin(name(1));
    FatalTwoPhaseException early = assertThrows(FatalTwoPhaseException.class, b::commit);
    assertTrue(early.getMessage().contains(name(1) + " is ACTIVE, so it cannot commit"), early.getMessage());
    assertFalse(b.isPrepared());
    assertEquals(Resolution.DONE, b.rollback(), "the refused commit left the branch as it was");
    assertThrows(FatalTwoPhaseException.class, () -> b.prepare("SELECT 1"));
    assertThrows(FatalTwoPhaseException.class, b::rollback);
    b.release();
    b.release(); // idempotent
    FatalTwoPhaseException late = assertThrows(FatalTwoPhaseException.class, b::commit);
    assertTrue(late.getMessage().contains("is RELEASED"), late.getMessage());
    if (usesTrackedDataSource()) {
      assertEquals(0, tracked.aborted(), "refused steps never touched the session: it went back to the pool");
    }
  }
}
