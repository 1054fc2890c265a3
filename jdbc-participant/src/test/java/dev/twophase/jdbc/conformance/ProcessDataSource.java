package dev.twophase.jdbc.conformance;

import dev.twophase.testkit.SimulatedProcess;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections belong to one {@link SimulatedProcess}: when the process
 * is killed, each connection it still holds is aborted, as the server sees a killed client's socket
 * close. Nothing of the participant runs.
 */
final class ProcessDataSource implements DataSource {

  private final DataSource delegate;
  private final SimulatedProcess process;

  ProcessDataSource(DataSource delegate, SimulatedProcess process) {
    this.delegate = delegate;
    this.process = process;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return process.track(delegate.getConnection(), ProcessDataSource::drop);
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return process.track(delegate.getConnection(user, password), ProcessDataSource::drop);
  }

  private static void drop(Connection connection) throws SQLException {
    if (!connection.isClosed()) {
      connection.abort(Runnable::run);
    }
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
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    return delegate.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || delegate.isWrapperFor(type);
  }
}
