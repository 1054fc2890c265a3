package dev.twophase.jdbc;

import dev.twophase.jdbc.servers.ForwardingDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Stands for a pool in the state log's tests: counts the connections handed out and not yet
 * closed or aborted, and throws a given failure from the next {@code getConnection()}.
 */
final class CountingDataSource extends ForwardingDataSource {

  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger handedOut = new AtomicInteger();
  private final AtomicReference<Throwable> nextFailure = new AtomicReference<>();

  CountingDataSource(DataSource target) {
    super(target);
  }

  /** Connections handed out and neither closed nor aborted. */
  int open() {
    return open.get();
  }

  int handedOut() {
    return handedOut.get();
  }

  /** The next {@code getConnection()} throws {@code failure} (an Error, an SQLException...). */
  void failNext(Throwable failure) {
    nextFailure.set(failure);
  }

  @Override
  public Connection getConnection() throws SQLException {
    Throwable failure = nextFailure.getAndSet(null);
    if (failure instanceof SQLException e) {
      throw e;
    } else if (failure instanceof RuntimeException e) {
      throw e;
    } else if (failure instanceof Error e) {
      throw e;
    }
    Connection c = target.getConnection();
    handedOut.incrementAndGet();
    open.incrementAndGet();
    AtomicBoolean done = new AtomicBoolean();
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
          if ((method.getName().equals("close") || method.getName().equals("abort"))
              && done.compareAndSet(false, true)) {
            open.decrementAndGet();
          }
          try {
            return method.invoke(c, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
