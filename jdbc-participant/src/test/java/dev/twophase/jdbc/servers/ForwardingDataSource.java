package dev.twophase.jdbc.servers;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that forwards everything but {@link #getConnection()} to another one: the
 * base of the tests' and benchmarks' stand-ins for a pool. {@code getConnection(user, password)}
 * is refused; the tests never pass credentials.
 */
public abstract class ForwardingDataSource implements DataSource {

  /** The data source the connections come from. */
  protected final DataSource target;

  protected ForwardingDataSource(DataSource target) {
    this.target = target;
  }

  @Override
  public abstract Connection getConnection() throws SQLException;

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the tests' data sources take no credentials");
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return type.isInstance(this) ? type.cast(this) : target.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || target.isWrapperFor(type);
  }
}
