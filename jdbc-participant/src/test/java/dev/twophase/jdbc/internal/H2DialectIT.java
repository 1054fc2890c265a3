package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.DatabaseSetupException;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import dev.twophase.jdbc.servers.H2Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The H2 dialect on an embedded file database, and the traps it exists for. */
class H2DialectIT extends DialectContractIT {

  private static H2Database database;

  private static synchronized H2Database database() {
    if (database == null) {
      try {
        database = H2Database.create("dialect");
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return database;
  }

  @Override
  protected DataSource plainDataSource() {
    return database().dataSource();
  }

  @Override
  protected Dialect dialect(DataSource tracked) {
    return new H2Dialect(tracked);
  }

  @Override
  protected void rollBackLeftovers() throws Exception {
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      for (String name : H2Database.inDoubt(plainDataSource())) {
        s.execute("ROLLBACK TRANSACTION \"" + name + "\"");
      }
    }
  }

  @Override
  protected String table() {
    return "dialect_h2";
  }

  @Test
  void detectsH2() throws Exception {
    assertInstanceOf(H2Dialect.class, Dialects.detect(plainDataSource()));
  }

  /** A crash (SHUTDOWN IMMEDIATELY: no clean close) leaves the prepared transaction in doubt. */
  @Test
  void aPreparedTransactionSurvivesACrashOfTheDatabase() throws Exception {
    Branch b = prepared(name(1));
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("SHUTDOWN IMMEDIATELY");
    }
    b.release();
    assertTrue(listed(name(1)), "in doubt after the crash: " + dialect.preparedNames());
    assertEquals(Resolution.DONE, dialect.commitRecovered(name(1)));
    assertEquals(List.of(name(1)), visibleRows(), "visible to other sessions at once");
    assertTrue(marker(name(1)));
  }

  /** The trap: H2 accepts a name twice, and COMMIT TRANSACTION then finishes one of the two. */
  @Test
  void duplicatePreparedNamesAreAcceptedByH2AndRefusedByTheDialect() throws Exception {
    Branch first = prepared(name(1));
    Branch second = dialect.begin(name(1));
    insertRow(second.connection(), name(2));
    second.prepare("SELECT 1"); // no error
    assertEquals(2, Collections.frequency(dialect.preparedNames(), name(1)));
    SQLException e = assertThrows(SQLException.class, () -> dialect.commitRecovered(name(1)));
    assertTrue(e.getMessage().contains("duplicate"), e.getMessage());
    assertEquals(List.of(), visibleRows(), "neither was committed");
    first.release();
    second.release();
    try (Connection c = plainDataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("ROLLBACK TRANSACTION \"" + name(1) + "\"");
      s.execute("ROLLBACK TRANSACTION \"" + name(1) + "\"");
    }
  }

  /** The trap: a file database with a write delay acknowledges commits it has not written. */
  @Test
  void aWriteDelayFailsFast() throws Exception {
    JdbcDataSource delayed = new JdbcDataSource();
    delayed.setURL("jdbc:h2:file:" + database().file() + "-delayed;WRITE_DELAY=500");
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
        () -> new H2Dialect(delayed).checkServer());
    assertTrue(e.getMessage().contains("WRITE_DELAY=0"), e.getMessage());
  }

  @Test
  void anInMemoryDatabaseFailsFast() throws Exception {
    JdbcDataSource memory = new JdbcDataSource();
    memory.setURL("jdbc:h2:mem:dialect");
    DatabaseSetupException e = assertThrows(DatabaseSetupException.class,
        () -> new H2Dialect(memory).checkServer());
    assertTrue(e.getMessage().contains("in memory"), e.getMessage());
  }
}
