package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.internal.Dialect.Resolution;
import dev.twophase.jdbc.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The MariaDB dialect on a real server, and the traps it exists for. */
class MariaDbDialectIT extends DialectContractIT {

  @Override
  protected DataSource plainDataSource() {
    return MariaDbServer.shared().dataSource();
  }

  @Override
  protected Dialect dialect(DataSource tracked) {
    return new MariaDbDialect(tracked, "MariaDB");
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    MariaDbServer.shared().rollBackLeftovers();
  }

  @Override
  protected String table() {
    return "dialect_maria";
  }

  @Test
  void detectsMariaDb() throws Exception {
    assertInstanceOf(MariaDbDialect.class, Dialects.detect(plainDataSource()));
  }

  /**
   * The trap: while the session that prepared a branch lives, XA COMMIT from another session
   * answers "unknown XID" (1397) although XA RECOVER lists the branch. Only "not listed" means
   * finished, so the dialect reports a branch still attached, never NOT_PREPARED.
   */
  @Test
  void unknownXidFromAnotherSessionWhileTheBranchIsListed() throws Exception {
    Branch b = prepared(name(1));
    try (Connection other = plainDataSource().getConnection(); Statement s = other.createStatement()) {
      SQLException e = assertThrows(SQLException.class,
          () -> s.execute("XA COMMIT " + MariaDbDialect.xid(name(1))));
      assertEquals(1397, e.getErrorCode(), "XAER_NOTA: " + e);
    }
    assertTrue(listed(name(1)), "XA RECOVER still lists it");
    assertThrows(BranchStillAttachedException.class, () -> dialect.commitRecovered(name(1)));
    assertThrows(BranchStillAttachedException.class, () -> dialect.rollbackRecovered(name(1)));
    assertEquals(List.of(), visibleRows());

    b.release(); // the session ends: the branch is free
    assertTrue(listed(name(1)), "the prepared branch outlived its session");
    assertEquals(Resolution.DONE, dialect.commitRecovered(name(1)));
    assertEquals(List.of(name(1)), visibleRows());
  }

  /** The trap: a connection that holds a prepared branch cannot start another one. */
  @Test
  void aConnectionWithAPreparedBranchMustNotBeReused() throws Exception {
    Branch b = prepared(name(1));
    try (Statement s = b.connection().createStatement()) {
      SQLException e = assertThrows(SQLException.class,
          () -> s.execute("XA START " + MariaDbDialect.xid(name(2))));
      assertEquals(1399, e.getErrorCode(), "XAER_RMFAIL, the branch is PREPARED: " + e);
    }
    b.release();
    assertEquals(1, tracked.aborted(), "so release() destroys it instead of returning it to a pool");
    assertEquals(Resolution.DONE, dialect.rollbackRecovered(name(1)));
  }

  /** The trap: a gtrid holds at most 64 bytes. */
  @Test
  void aGtridOfMoreThan64BytesIsRefused() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      SQLException e = assertThrows(SQLException.class, () -> s.execute("XA START '" + "g".repeat(65) + "'"));
      assertEquals(1064, e.getErrorCode(), "MariaDB's parser refuses it as a syntax error: " + e);
    }
    assertThrows(IllegalArgumentException.class, () -> dialect.begin("g".repeat(65)));
    assertEquals(64, dialect.maxNameBytes());
  }

  /** Other applications' XA branches (another format id or a bqual) are never listed as ours. */
  @Test
  void foreignXaBranchesAreNotListed() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("XA START '" + name(1) + "','b',1");
      insertRow(c, name(1));
      s.execute("XA END '" + name(1) + "','b',1");
      s.execute("XA PREPARE '" + name(1) + "','b',1");
      assertTrue(MariaDbServer.shared().preparedTransactions().contains(name(1)));
      assertTrue(!dialect.preparedNames().contains(name(1)));
      s.execute("XA ROLLBACK '" + name(1) + "','b',1");
    }
  }

  @Test
  void versionsAreParsed() {
    assertEquals(List.of(10, 11, 5), toList(MariaDbDialect.parseVersion("10.11.5-MariaDB-log")));
    assertEquals(List.of(8, 0, 36), toList(MariaDbDialect.parseVersion("8.0.36")));
  }

  private static List<Integer> toList(int[] v) {
    return List.of(v[0], v[1], v[2]);
  }
}
