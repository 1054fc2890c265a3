package dev.twophase.benchmarks.jdbc;

import dev.twophase.jdbc.servers.ForwardingDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import javax.sql.DataSource;

/**
 * The smallest connection pool that behaves like one for the benchmarks: {@code close()} hands the
 * physical connection back (auto-commit restored), {@code abort()} destroys it.
 */
final class SimplePool extends ForwardingDataSource implements AutoCloseable {

  private final Deque<Connection> idle = new ArrayDeque<>();

  SimplePool(DataSource target) {
    super(target);
  }

  @Override
  public synchronized Connection getConnection() throws SQLException {
    Connection physical = idle.pollFirst();
    if (physical == null) {
      physical = target.getConnection();
    }
    Connection c = physical;
    boolean[] done = {false};
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          switch (method.getName()) {
            case "close" -> {
              if (!done[0]) {
                done[0] = true;
                if (!c.getAutoCommit()) {
                  c.rollback();
                  c.setAutoCommit(true);
                }
                giveBack(c);
              }
              return null;
            }
            case "abort" -> {
              done[0] = true;
              c.close();
              return null;
            }
            case "isClosed" -> {
              return done[0] || c.isClosed();
            }
            default -> {
              try {
                return method.invoke(c, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }
          }
        });
  }

  private synchronized void giveBack(Connection c) {
    idle.addFirst(c);
  }

  @Override
  public synchronized void close() throws SQLException {
    for (Connection c : idle) {
      c.close();
    }
    idle.clear();
  }
}
