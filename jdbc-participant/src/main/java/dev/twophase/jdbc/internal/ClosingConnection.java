package dev.twophase.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.XAConnection;

/** A connection whose {@code close()} also closes the {@link XAConnection} it came from. */
final class ClosingConnection {

  private ClosingConnection() {}

  static Connection closing(Connection c, XAConnection owner) {
    InvocationHandler h = (proxy, method, args) -> {
      if (method.getName().equals("close") && method.getParameterCount() == 0) {
        try {
          c.close();
        } finally {
          XaDialect.close(owner);
        }
        return null;
      }
      try {
        return method.invoke(c, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    return (Connection) Proxy.newProxyInstance(
        ClosingConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
  }
}
