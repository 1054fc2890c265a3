package dev.twophase.jdbc.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real database servers of this test JVM: each started once, on first use, and stopped when
 * the JVM ends (in reverse order of start). Data lives under {@code target/servers/}.
 */
public final class Servers {

  /** Starts a server. */
  @FunctionalInterface
  public interface Starter<T extends AutoCloseable> {
    T start() throws Exception;
  }

  private static final Map<String, AutoCloseable> RUNNING = new LinkedHashMap<>();
  private static boolean hookInstalled;

  private Servers() {}

  @SuppressWarnings("unchecked")
  static synchronized <T extends AutoCloseable> T shared(String key, Starter<T> starter) {
    AutoCloseable server = RUNNING.get(key);
    if (server == null) {
      try {
        long start = System.nanoTime();
        server = starter.start();
        System.err.printf("[servers] %s started in %d ms%n", key, (System.nanoTime() - start) / 1_000_000);
      } catch (Exception e) {
        throw new IllegalStateException("could not start the " + key + " test server: " + e, e);
      }
      RUNNING.put(key, server);
      if (!hookInstalled) {
        hookInstalled = true;
        Runtime.getRuntime().addShutdownHook(new Thread(Servers::stopAll, "stop-test-servers"));
      }
    }
    return (T) server;
  }

  private static synchronized void stopAll() {
    var servers = new java.util.ArrayList<>(RUNNING.entrySet());
    java.util.Collections.reverse(servers);
    for (var e : servers) {
      try {
        e.getValue().close();
      } catch (Exception ex) {
        System.err.println("[servers] could not stop " + e.getKey() + ": " + ex);
      }
    }
    RUNNING.clear();
  }

  /** A fresh directory for a server's data under {@code target/servers}, unique per JVM. */
  static Path dataDir(String name) throws IOException {
    Path dir = Path.of("target", "servers", name + "-" + ProcessHandle.current().pid()).toAbsolutePath();
    deleteTree(dir);
    Files.createDirectories(dir);
    return dir;
  }

  /** Deletes {@code dir}; tries again for a while if a stopping server still writes into it. */
  static void deleteTree(Path dir) throws IOException {
    for (int attempt = 1; ; attempt++) {
      if (!Files.exists(dir)) {
        return;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
        return;
      } catch (IOException | java.io.UncheckedIOException e) {
        if (attempt == 20) {
          throw e instanceof IOException io ? io : new IOException(e);
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while deleting " + dir, interrupted);
        }
      }
    }
  }
}
