package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any database with a {@link XADataSource}: the driver's {@link XAResource}, with the transaction
 * name as gtrid (at most 64 bytes), the bqual {@code tp} (MariaDB Connector/J writes an empty
 * bqual as invalid SQL) and the format id {@value MariaDbDialect#FORMAT_ID}. One {@link
 * XAConnection} per branch, closed for good once the branch ends.
 *
 * <p>Recovery always asks {@link XAResource#recover} first and acts only on what it lists: some
 * drivers (H2's) silently ignore a {@code rollback} of an xid that their {@code recover} did not
 * list, and only "not listed" proves that nothing is left to finish.
 */
@Internal
public final class XaDialect extends DialectTemplate<XAResource> {

  private static final Logger LOG = LoggerFactory.getLogger(XaDialect.class);
  static final int MAX_GTRID_BYTES = Xid.MAXGTRIDSIZE;
  private static final byte[] BQUAL = {'t', 'p'};

  private final XADataSource dataSource;
  private final String product;

  public XaDialect(XADataSource dataSource, String product) {
    this.dataSource = dataSource;
    this.product = product;
  }

  @Override
  public String product() {
    return product + " (XA)";
  }

  @Override
  public int maxNameBytes() {
    return MAX_GTRID_BYTES;
  }

  @Override
  public void checkServer() throws SQLException {
    XAConnection xa = dataSource.getXAConnection();
    try {
      xa.getXAResource().recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
    } catch (XAException e) {
      throw new dev.twophase.jdbc.DatabaseSetupException(
          product + " refuses XAResource.recover() (" + XaErrors.describe(e) + "): without it "
              + "prepared transactions cannot be found after a crash; grant the user the right "
              + "to recover XA transactions", e);
    } finally {
      close(xa);
    }
  }

  /** The xid of a transaction name. */
  public static Xid xid(String name) {
    BranchNames.requireSafe(name);
    byte[] gtrid = name.getBytes(StandardCharsets.US_ASCII);
    if (gtrid.length > MAX_GTRID_BYTES) {
      throw new IllegalArgumentException("XA gtrid " + name + " is longer than 64 bytes");
    }
    return new SimpleXid(MariaDbDialect.FORMAT_ID, gtrid, BQUAL.clone());
  }

  @Override
  public Branch begin(String name) throws SQLException {
    requireName(name);
    Xid xid = xid(name);
    XAConnection xa = dataSource.getXAConnection();
    boolean ok = false;
    try {
      XAResource resource = xa.getXAResource();
      Connection c = xa.getConnection();
      resource.start(xid, XAResource.TMNOFLAGS);
      Branch branch = new XaBranch(name, xid, xa, resource, c);
      ok = true;
      return branch;
    } catch (XAException e) {
      throw XaErrors.toSql("XA start of " + name, e);
    } finally {
      if (!ok) {
        close(xa);
      }
    }
  }

  @Override
  <T> T onNewSession(SessionWork<XAResource, T> work) throws SQLException {
    XAConnection xa = dataSource.getXAConnection();
    try {
      return work.run(xa.getXAResource());
    } finally {
      close(xa);
    }
  }

  @Override
  void runFinish(XAResource resource, String name, boolean commit) throws SQLException {
    try {
      if (commit) {
        resource.commit(xid(name), false);
      } else {
        resource.rollback(xid(name));
      }
    } catch (XAException e) {
      throw XaErrors.toSql("XA " + (commit ? "commit" : "rollback") + " of " + name, e);
    }
  }

  @Override
  boolean isUnknownTransaction(SQLException e) {
    return e.getCause() instanceof XAException x && x.errorCode == XAException.XAER_NOTA;
  }

  /**
   * Some drivers (H2's) silently ignore a rollback of an xid that their {@code recover} did not
   * list, so every finish lists first.
   */
  @Override
  boolean listsBeforeFinishing() {
    return true;
  }

  @Override
  List<String> listPrepared(XAResource resource) throws SQLException {
    Xid[] xids;
    try {
      xids = resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
    } catch (XAException e) {
      throw XaErrors.toSql("XA recover", e);
    }
    List<String> names = new ArrayList<>();
    if (xids != null) {
      for (Xid x : xids) {
        if (x.getFormatId() == MariaDbDialect.FORMAT_ID
            && Arrays.equals(x.getBranchQualifier(), BQUAL)) {
          names.add(new String(x.getGlobalTransactionId(), StandardCharsets.US_ASCII));
        }
      }
    }
    return names;
  }

  @Override
  public Connection autoCommitConnection() throws SQLException {
    XAConnection xa = dataSource.getXAConnection();
    try {
      Connection c = xa.getConnection();
      c.setAutoCommit(true);
      return ClosingConnection.closing(c, xa);
    } catch (SQLException | RuntimeException | Error e) {
      close(xa);
      throw e;
    }
  }

  static void close(XAConnection xa) {
    try {
      xa.close();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("closing an XA connection failed", e);
    }
  }

  /** An {@link Xid} by value. */
  record SimpleXid(int formatId, byte[] gtrid, byte[] bqual) implements Xid {
    @Override
    public int getFormatId() {
      return formatId;
    }

    @Override
    public byte[] getGlobalTransactionId() {
      return gtrid.clone();
    }

    @Override
    public byte[] getBranchQualifier() {
      return bqual.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Xid x && x.getFormatId() == formatId
          && Arrays.equals(x.getGlobalTransactionId(), gtrid)
          && Arrays.equals(x.getBranchQualifier(), bqual);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(gtrid) * 31 + formatId;
    }

    @Override
    public String toString() {
      return "Xid(" + formatId + ", " + new String(gtrid, StandardCharsets.US_ASCII) + ")";
    }
  }

  /** A branch on an {@link XAConnection} of its own, closed for good at release. */
  private final class XaBranch extends BranchTemplate {
    private final Xid xid;
    private final XAConnection xa;
    private final XAResource resource;

    XaBranch(String name, Xid xid, XAConnection xa, XAResource resource, Connection connection) {
      super(product(), name, connection);
      this.xid = xid;
      this.xa = xa;
      this.resource = resource;
    }

    @Override
    boolean prepareOnSession(String lastStatement) throws SQLException {
      try (Statement s = connection.createStatement()) {
        s.execute(lastStatement);
      }
      try {
        resource.end(xid, XAResource.TMSUCCESS);
        return resource.prepare(xid) != XAResource.XA_RDONLY;
      } catch (XAException e) {
        throw XaErrors.toSql("XA prepare of " + name, e);
      }
    }

    @Override
    Resolution finishPrepared(boolean commit) throws SQLException {
      return finishOn(resource, name, commit);
    }

    @Override
    void rollbackActive() throws SQLException {
      try {
        resource.end(xid, XAResource.TMFAIL);
      } catch (XAException e) {
        LOG.debug("XA end(TMFAIL) of {} failed; rolling back anyway", name, e);
      }
      try {
        resource.rollback(xid);
      } catch (XAException e) {
        if (e.errorCode != XAException.XAER_NOTA && (e.errorCode < XAException.XA_RBBASE
            || e.errorCode > XAException.XA_RBEND)) {
          throw XaErrors.toSql("XA rollback of " + name, e);
        }
      }
    }

    @Override
    void closeSession(boolean reusable) {
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        LOG.debug("closing the connection of {} failed", name, e);
      }
      close(xa);
    }
  }
}
