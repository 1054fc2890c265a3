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
  private final AtomicReference<SQLException> nextCommitFailure = new AtomicReference<>();

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

  /**
   * The next {@code commit()} on any of its connections commits, then throws {@code failure}: a
   * commit whose answer was lost.
   */
  void failNextCommitAfterCommitting(SQLException failure) {
    nextCommitFailure.set(failure);
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
          Object result;
          try {
            result = method.invoke(c, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("commit")) {
            SQLException lost = nextCommitFailure.getAndSet(null);
            if (lost != null) {
              throw lost;
            }
          }
          return result;
        });
  }
}
