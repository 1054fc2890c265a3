package dev.twophase.testkit.statelog;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StateLogChild} JVM, driven from the test: {@link #ok} sends a command that must
 * succeed, {@link #send} one whose reply the test looks at, {@link #kill} ends the JVM as a crash
 * would (no shutdown hook, nothing closed). The child never outlives the test: {@link #close}
 * kills it.
 */
final class ChildLog implements AutoCloseable {

  /** A reply of the child: {@code ok ...} or {@code error <class> <message>}. */
  record Reply(String line) {
    boolean ok() {
      return line.startsWith("ok");
    }

    /** The words after {@code ok}. */
    String[] values() {
      return line.substring(2).trim().split(" ");
    }

    /** The class name of the exception of an {@code error} reply, null for {@code ok}. */
    String exception() {
      return ok() ? null : line.split(" ")[1];
    }

    /** Whether the child's command failed with a {@code type} (or a subclass). */
    boolean isA(Class<? extends Throwable> type) {
      return !ok() && ChildLog.isA(exception(), type);
    }
  }

  /** Whether the class named {@code className} is {@code type} or a subclass of it. */
  static boolean isA(String className, Class<?> type) {
    try {
      return type.isAssignableFrom(Class.forName(className, false, ChildLog.class.getClassLoader()));
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static final long REPLY_TIMEOUT_SECONDS = 120;
  private static final String EOF = "\u0000eof";

  private final String name;
  private final Process process;
  private final Path stderr;
  private final Writer stdin;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

  private ChildLog(String name, Process process, Path stderr) {
    this.name = name;
    this.process = process;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readReplies, "statelog-child-reader " + name);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a child JVM that opens owners through {@code factory} on the store {@code settings} name. */
  static ChildLog start(String name, List<String> jvmOptions,
      Class<? extends StateLogFactory> factory, Map<String, String> settings, boolean takeOver)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xshare:auto");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath());
    command.add(StateLogChild.class.getName());
    command.add(factory.getName());
    command.add(Boolean.toString(takeOver));
    settings.forEach((k, v) -> command.add(StateLogChild.encode(k) + "=" + StateLogChild.encode(v)));
    Path stderr = Files.createTempFile("statelog-child-", ".err");
    try {
      Process process = new ProcessBuilder(command)
          .redirectError(stderr.toFile())
          .start();
      return new ChildLog(name, process, stderr);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(stderr);
      throw e;
    }
  }

  /**
   * The test class path: Surefire and Failsafe put it in {@code surefire.test.class.path} (their
   * own JVM may run from a manifest-only jar); otherwise the JVM's own.
   */
  private static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp == null || cp.isBlank() ? System.getProperty("java.class.path") : cp;
  }

  private void readReplies() {
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(StateLogChild.REPLY)) {
          replies.add(line.substring(StateLogChild.REPLY.length()));
        }
      }
    } catch (IOException e) {
      // the child was killed: its output ends here
    } finally {
      replies.add(EOF);
    }
  }

  /** Sends {@code command} and returns the child's reply. */
  Reply send(String command) {
    try {
      stdin.write(command + "\n");
      stdin.flush();
    } catch (IOException e) {
      fail("child JVM '" + name + "' is gone, it cannot run '" + command + "'" + diagnostics(), e);
    }
    String line;
    try {
      line = replies.poll(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for child JVM '" + name + "'", e);
    }
    if (line == null) {
      fail("child JVM '" + name + "' did not answer '" + command + "' within "
          + REPLY_TIMEOUT_SECONDS + " s" + diagnostics());
    }
    if (line.equals(EOF)) {
      replies.add(EOF);
      fail("child JVM '" + name + "' ended before answering '" + command + "'" + diagnostics());
    }
    return new Reply(line);
  }

  /** Sends {@code command}, which must succeed, and returns the values of the reply. */
  String[] ok(String command) {
    Reply reply = send(command);
    if (!reply.ok()) {
      fail("child JVM '" + name + "': '" + command + "' failed: " + reply.line() + diagnostics());
    }
    return reply.values();
  }

  /** Ends the child as a crash would: nothing closed, no shutdown hook. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        fail("child JVM '" + name + "' did not die within 60 s of destroyForcibly");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for child JVM '" + name + "' to die", e);
    }
  }

  private String diagnostics() {
    String err;
    try {
      err = Files.readString(stderr, StandardCharsets.UTF_8);
    } catch (IOException | UncheckedIOException e) {
      err = "(unreadable: " + e + ")";
    }
    if (err.length() > 4000) {
      err = "..." + err.substring(err.length() - 4000);
    }
    return err.isBlank() ? "" : "; its stderr:\n" + err;
  }

  @Override
  public void close() {
    try {
      kill();
    } finally {
      try {
        Files.deleteIfExists(stderr);
      } catch (IOException ignored) {
        // a temporary file left behind
      }
    }
  }
}
