package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * The connection the application sees for one transaction: the branch's connection, minus what
 * would break the protocol. {@code commit}, {@code rollback()}, {@code setAutoCommit(true)}, {@code
 * close}, {@code abort} and {@code setNetworkTimeout} are refused with a message that says why;
 * savepoints and everything else pass through. It notes whether a statement was ever created (a
 * transaction that made none is empty and prepares nothing), and once the transaction is
 * pre-committed or aborted it refuses every call, so a connection kept across a checkpoint fails
 * at once instead of writing into the wrong transaction.
 *
 * <p>Thread-safe in the sense that {@link #expire(String)} may come from another thread; the connection
 * itself is as thread-safe as the driver's.
 */
@Internal
public final class TransactionConnection implements InvocationHandler {

  private static final Set<String> REFUSED =
      Set.of("commit", "close", "abort", "setNetworkTimeout");
  private static final Set<String> ALWAYS_ALLOWED =
      Set.of("isClosed", "toString", "hashCode", "equals", "isWrapperFor", "unwrap");

  private final Connection target;
  private final String description;
  private volatile boolean used;
  private volatile String expired;

  private TransactionConnection(Connection target, String description) {
    this.target = target;
    this.description = description;
  }

  /** A proxy over {@code target}; {@code description} names the participant and transaction. */
  public static TransactionConnection wrap(Connection target, String description) {
    return new TransactionConnection(target, description);
  }

  /** The proxy to hand to the application. */
  public Connection connection() {
    return (Connection) Proxy.newProxyInstance(
        TransactionConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
  }

  /** Whether the application created a statement (or marked it used). */
  public boolean used() {
    return used;
  }

  /** The batch writer's statements count as writes too. */
  public void markUsed() {
    used = true;
  }

  /** From now on every call fails with {@code why}. */
  public void expire(String why) {
    expired = why;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String m = method.getName();
    if (method.getDeclaringClass() == Object.class || ALWAYS_ALLOWED.contains(m)) {
      if (m.equals("equals")) {
        return proxy == args[0];
      }
      if (m.equals("hashCode")) {
        return System.identityHashCode(proxy);
      }
      if (m.equals("toString")) {
        return description;
      }
      if (m.equals("isClosed")) {
        return expired != null || target.isClosed();
      }
      return call(method, args);
    }
    String why = expired;
    if (why != null) {
      throw new SQLException(description + ": " + why, "08003");
    }
    if (REFUSED.contains(m)
        || (m.equals("rollback") && (args == null || args.length == 0))
        || (m.equals("setAutoCommit") && Boolean.TRUE.equals(args[0]))) {
      throw new SQLException(description + ": " + m + "() is the participant's job; the "
          + "transaction is prepared at the checkpoint and committed after the coordinator's "
          + "decision. To undo part of it use a savepoint; to drop all of it, let the checkpoint "
          + "fail (throw from your application)", "25000");
    }
    if (m.startsWith("create") || m.startsWith("prepare")) {
      used = true;
    }
    return call(method, args);
  }

  private Object call(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
