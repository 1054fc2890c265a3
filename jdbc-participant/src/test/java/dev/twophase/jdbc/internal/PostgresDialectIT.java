package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.DatabaseSetupException;
import dev.twophase.jdbc.servers.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The PostgreSQL dialect on a real server, and the traps it exists for. */
class PostgresDialectIT extends DialectContractIT {

  @Override
  protected DataSource plainDataSource() {
    return PostgresServer.shared().dataSource();
  }

  @Override
  protected Dialect dialect(DataSource tracked) {
    return new PostgresDialect(tracked);
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    PostgresServer.shared().rollBackLeftovers();
  }

  @Override
  protected String table() {
    return "dialect_pg";
  }

  @Test
  void detectsPostgres() throws Exception {
    assertInstanceOf(PostgresDialect.class, Dialects.detect(plainDataSource()));
  }

  /** The trap: with auto-commit on, PREPARE TRANSACTION only warns, and prepares nothing. */
  @Test
  void withAutoCommitOnPrepareTransactionPreparesNothingSilently() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      insertRow(c, name(1));
      s.execute("PREPARE TRANSACTION '" + name(1) + "'"); // no exception
      SQLWarning warning = s.getWarnings();
      assertTrue(warning != null && warning.getMessage().contains("no transaction in progress"),
          "PostgreSQL only warns: " + warning);
    }
    assertFalse(listed(name(1)), "nothing was prepared");
    assertEquals(List.of(name(1)), visibleRows(), "the row committed on its own");
  }

  @Test
  void aBranchWhoseConnectionWasSwitchedToAutoCommitRefusesToPrepare() throws Exception {
    Branch b = dialect.begin(name(1));
    b.connection().setAutoCommit(true);
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class, () -> b.prepare("SELECT 1"));
    assertTrue(e.getMessage().contains("auto-commit"), e.getMessage());
    b.release();
    assertEquals(1, tracked.aborted(), "a failed prepare leaves the session unusable for others");
  }

  /**
   * The trap: PREPARE TRANSACTION in a transaction an error aborted answers like a rollback, with
   * no error. The marker insert that precedes every prepare fails first (25P02).
   */
  @Test
  void anAbortedTransactionPreparesNothingAndTheMarkerInsertSaysSo() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
      s.execute("PREPARE TRANSACTION '" + name(1) + "'"); // no exception either
      c.setAutoCommit(true);
    }
    assertFalse(listed(name(1)), "an aborted transaction is not prepared");

    Branch b = dialect.begin(name(2));
    assertThrows(SQLException.class, () -> b.connection().createStatement().execute("SELECT 1/0"));
    SQLException e = assertThrows(SQLException.class,
        () -> b.prepare(markers.insertSql(name(2), "o", 1)));
    assertEquals("25P02", e.getSQLState(), "in_failed_sql_transaction: " + e);
    assertFalse(listed(name(2)), "the prepare that followed the marker in the same round trip did not run");
    b.release();
  }

  @Test
  void aGidOfMoreThan199BytesIsRefusedByTheServer() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      insertRow(c, name(1));
      SQLException e = assertThrows(SQLException.class,
          () -> s.execute("PREPARE TRANSACTION '" + "g".repeat(200) + "'"));
      assertEquals("22023", e.getSQLState(), e.toString()); // invalid_parameter_value: too long
      c.rollback();
    }
    assertEquals(199, dialect.maxNameBytes());
  }

  /** PostgreSQL's default, max_prepared_transactions = 0, fails fast with the fix in the message. */
  @Test
  void preparedTransactionsDisabledFailFast() throws Exception {
    try (PostgresServer disabled = PostgresServer.start(0, "disabled")) {
      try (Connection c = disabled.dataSource().getConnection(); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        SQLException e = assertThrows(SQLException.class, () -> s.execute("PREPARE TRANSACTION 'x'"));
        assertEquals("55000", e.getSQLState(), "object_not_in_prerequisite_state: " + e);
        assertTrue(e.getMessage().contains("prepared transactions are disabled"), e.getMessage());
        c.rollback();
      }
      DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
          () -> new PostgresDialect(disabled.dataSource()).checkServer());
      assertTrue(e.getMessage().contains("max_prepared_transactions = 0"), e.getMessage());
      assertTrue(e.getMessage().contains("postgresql.conf"), e.getMessage());
    }
  }
}
