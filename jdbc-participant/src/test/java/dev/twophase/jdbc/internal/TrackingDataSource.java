package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.servers.ForwardingDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Stands for a pool in tests: counts the connections handed out, closed (returned) and aborted
 * (destroyed, so never handed out again).
 */
final class TrackingDataSource extends ForwardingDataSource {

  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger aborted = new AtomicInteger();

  TrackingDataSource(DataSource target) {
    super(target);
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
}
