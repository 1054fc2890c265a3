package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;

/** Owner names of the JDBC state log: checked, and the default of a process. */
@Internal
public final class OwnerNames {

  private static final AtomicInteger BUILT = new AtomicInteger();
  /** The host name, looked up once (a slow resolver then costs once). */
  private static volatile String host;

  private OwnerNames() {}

  /**
   * Returns {@code name} once checked.
   *
   * @throws IllegalArgumentException if the name is empty or longer than {@value
   *     StateLogTable#ID_CHARS} characters
   */
  public static String require(String name) {
    if (name == null) {
      throw new NullPointerException("ownerName");
    }
    if (name.isBlank() || name.length() > StateLogTable.ID_CHARS) {
      throw new IllegalArgumentException("ownerName must be 1 to " + StateLogTable.ID_CHARS
          + " characters and not blank, was '" + name + "'");
    }
    return name;
  }

  /**
   * {@code host:pid} for the first log built in this JVM, {@code host:pid:n} for the n-th after
   * it: two logs of one process never share a name, and so never take each other's coordinators
   * without being refused.
   */
  public static String processDefault() {
    int n = BUILT.incrementAndGet();
    String name = host() + ":" + ProcessHandle.current().pid() + (n == 1 ? "" : ":" + n);
    return name.length() <= StateLogTable.ID_CHARS ? name : name.substring(0, StateLogTable.ID_CHARS);
  }

  private static String host() {
    String h = host;
    if (h == null) {
      try {
        h = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException | SecurityException e) {
        String env = System.getenv("HOSTNAME");
        h = env == null || env.isBlank() ? "localhost" : env;
      }
      host = h;
    }
    return h;
  }
}
