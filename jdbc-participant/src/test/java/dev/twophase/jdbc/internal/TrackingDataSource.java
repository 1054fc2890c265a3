package dev.twophase.jdbc.internal;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Stands for a pool in tests: counts the connections handed out, closed (returned) and aborted
 * (destroyed, so never handed out again).
 */
final class TrackingDataSource implements DataSource {

  private final DataSource target;
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger aborted = new AtomicInteger();

  TrackingDataSource(DataSource target) {
    this.target = target;
  }

  int opened() {
    return opened.get();
  }

  int closed() {
    return closed.get();
  }

  int aborted() {
    return aborted.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection c = target.getConnection();
    opened.incrementAndGet();
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          if (method.getName().equals("close") && !c.isClosed()) {
            closed.incrementAndGet();
          } else if (method.getName().equals("abort")) {
            aborted.incrementAndGet();
          }
          try {
            return method.invoke(c, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException();
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
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return target.isWrapperFor(iface);
  }
}
