package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.jdbc.servers.H2Database;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/** The generic XA dialect over the drivers' own XADataSources, against the real databases. */
class XaDialectIT {

  @Nested
  class OnPostgres extends DialectContractIT {
    @Override
    protected DataSource plainDataSource() {
      return PostgresServer.shared().dataSource();
    }

    @Override
    protected Dialect dialect(DataSource tracked) {
      PGXADataSource xa = new PGXADataSource();
      xa.setUrl(PostgresServer.shared().jdbcUrl());
      xa.setUser(PostgresServer.USER);
      return new XaDialect(xa, "PostgreSQL");
    }

    @Override
    protected boolean usesTrackedDataSource() {
      return false;
    }

    @Override
    protected void rollBackLeftovers() throws Exception {
      PostgresServer.shared().rollBackLeftovers();
    }

    @Override
    protected String table() {
      return "dialect_pg_xa";
    }
  }

  @Nested
  class OnMariaDb extends DialectContractIT {
    @Override
    protected DataSource plainDataSource() {
      return MariaDbServer.shared().dataSource();
    }

    @Override
    protected Dialect dialect(DataSource tracked) {
      try {
        return new XaDialect(new MariaDbDataSource(MariaDbServer.shared().jdbcUrl()), "MariaDB");
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    protected boolean usesTrackedDataSource() {
      return false;
    }

    @Override
    protected void rollBackLeftovers() throws Exception {
      MariaDbServer.shared().rollBackLeftovers();
    }

    @Override
    protected String table() {
      return "dialect_maria_xa";
    }
  }

  /**
   * The trap: after a crash, H2's XAResource.rollback of a prepared xid that its recover() did
   * not list first does nothing, silently. The dialect always lists first. (H2's XA path is not
   * otherwise recommended: closing its XAConnection rolls back a prepared transaction, so the
   * participant uses the H2 dialect over a DataSource.)
   */
  @Test
  void h2IgnoresARollbackOfAnXidItsRecoverDidNotList() throws Exception {
    String name = "xa-h2-" + Long.toHexString(System.nanoTime()) + "-1-1";
    Xid xid = XaDialect.xid(name);
    JdbcDataSource ds = h2().dataSource();
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS xa_h2 (id VARCHAR(100) PRIMARY KEY)");
    }
    XAConnection preparing = ds.getXAConnection();
    XAResource r = preparing.getXAResource();
    r.start(xid, XAResource.TMNOFLAGS);
    try (Statement s = preparing.getConnection().createStatement()) {
      s.execute("INSERT INTO xa_h2 VALUES ('" + name + "')");
    }
    r.end(xid, XAResource.TMSUCCESS);
    r.prepare(xid);
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute("SHUTDOWN IMMEDIATELY"); // the crash: nothing is closed cleanly
    }

    XAConnection other = ds.getXAConnection();
    other.getXAResource().rollback(xid); // no exception...
    other.close();
    XaDialect dialect = new XaDialect(ds, "H2");
    assertTrue(dialect.preparedNames().contains(name), "... and nothing rolled back");

    assertEquals(Dialect.Resolution.DONE, dialect.rollbackRecovered(name));
    assertTrue(!dialect.preparedNames().contains(name));
    assertEquals(Dialect.Resolution.NOT_PREPARED, dialect.rollbackRecovered(name));
  }

  private static H2Database h2;

  static synchronized H2Database h2() {
    if (h2 == null) {
      try {
        h2 = H2Database.create("xa");
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return h2;
  }

  @Test
  void jdbcDataSourceIsAnXaDataSource() {
    assertTrue(XADataSource.class.isAssignableFrom(JdbcDataSource.class));
  }
}
