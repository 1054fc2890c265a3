package dev.twophase.docs;

import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.docs.StagedTableParticipant.Event;
import dev.twophase.docs.StagedTableParticipant.Txn;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** The walk-through's participant passes the conformance suite on an H2 file database. */
class StagedTableParticipantConformanceTest extends ParticipantConformanceSuite<Txn, Void, Event> {

  private DataSource database;

  @Override
  protected void setUpResource() throws Exception {
    database = H2.dataSource(Files.createTempDirectory("staged-table"));
    StagedTableParticipant.createTables(database);
  }

  @Override
  protected Participant<Txn, Void> newParticipant(SimulatedProcess process) {
    // Every connection the participant opens belongs to its process: killing the process aborts
    // them, as the database would see the death of a client, and the participant is not told.
    return new StagedTableParticipant(new ProcessDataSource(database, process), FaultInjector.none());
  }

  @Override
  protected List<Event> committedRecords() throws SQLException {
    List<Event> events = new ArrayList<>();
    try (Connection c = database.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT id, body FROM events ORDER BY _ROWID_")) {
      while (rs.next()) {
        events.add(new Event(rs.getLong(1), rs.getString(2)));
      }
    }
    return events;
  }

  @Override
  protected Event record(int i) {
    return new Event(i, "event-" + i);
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  /** As a careless clean-up job would: the staged rows and the marker of a prepared transaction go. */
  @Override
  protected void makeLost(Txn transaction) throws SQLException {
    try (Connection c = database.getConnection()) {
      for (String table : List.of("events_staging", "twophase_markers")) {
        try (var delete = c.prepareStatement("DELETE FROM " + table + " WHERE txn = ?")) {
          delete.setString(1, transaction.name());
          delete.executeUpdate();
        }
      }
    }
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  /** Pre-committed (a PREPARED marker) or staged rows: only what reached the database shows. */
  @Override
  protected boolean isInProgress(Txn transaction) throws SQLException {
    try (Connection c = database.getConnection();
        var q = c.prepareStatement("SELECT COUNT(*) FROM twophase_markers WHERE txn = ? AND state = 'PREPARED'")) {
      q.setString(1, transaction.name());
      try (ResultSet rs = q.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  /** Connections from a simulated process: each one is aborted when the process is killed. */
  private record ProcessDataSource(DataSource delegate, SimulatedProcess process) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      return process.track(delegate.getConnection(), H2::kill);
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return process.track(delegate.getConnection(user, password), H2::kill);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      return delegate.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
      return delegate.isWrapperFor(type);
    }
  }
}
