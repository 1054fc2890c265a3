package dev.twophase.demo.takeover;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One {@link TakeoverJob} in a child JVM: its output collected (and relayed with a prefix), killed
 * with {@code SIGKILL} when it announces its crash point if asked to, and stopped or resumed with
 * {@code SIGSTOP}/{@code SIGCONT}.
 */
final class ChildJob implements AutoCloseable {

  /** The exit code of a JVM killed with SIGKILL. */
  static final int SIGKILL_EXIT = 137;

  private final String name;
  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread stdout;
  private final Thread stderr;
  private volatile String killedAt;

  private ChildJob(String name, Process process, boolean killAtPoint) {
    this.name = name;
    this.process = process;
    this.stdout = relay(process.getInputStream(), name + " | ", killAtPoint);
    this.stderr = relay(process.getErrorStream(), name + " ! ", false);
  }

  static ChildJob start(String name, JobArgs args) throws IOException {
    return start(name, Path.of(args.local()), TakeoverJob.class, args.toArgs(),
        !args.crash().equalsIgnoreCase("none") && !args.crash().startsWith("pause:"));
  }

  /**
   * Starts {@code main} in a child JVM on the test class path, with {@code local} as its own
   * directory (its temporary files go there); with {@code killAtPoint}, killed with SIGKILL when it
   * announces a protocol point ({@link StopAtPoint}).
   */
  static ChildJob start(String name, Path local, Class<?> main, List<String> args, boolean killAtPoint)
      throws IOException {
    Path tmp = Files.createDirectories(local.resolve("tmp"));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xmx256m");
    cmd.add("-Djava.io.tmpdir=" + tmp);
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(main.getName());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start();
    return new ChildJob(name, p, killAtPoint);
  }

  long pid() {
    return process.pid();
  }

  /** The point it announced and was killed at, or null. */
  String killedAt() {
    return killedAt;
  }

  List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  int lineCount() {
    synchronized (lines) {
      return lines.size();
    }
  }

  String output() {
    return String.join("\n", lines());
  }

  /** Waits until a line matches; false if the job ended or the time ran out first. */
  boolean awaitLine(Predicate<String> match, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      while (true) {
        if (lines.stream().anyMatch(match)) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || (!process.isAlive() && !stdout.isAlive())) {
          return false;
        }
        lines.wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
      }
    }
  }

  /** Waits for the end; kills it if it outlives {@code timeout}. Returns whether it ended by itself. */
  boolean awaitExit(Duration timeout) throws InterruptedException {
    boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!ended) {
      process.destroyForcibly();
      process.waitFor();
    }
    stdout.join(10_000);
    stderr.join(10_000);
    return ended;
  }

  int exitCode() {
    return process.exitValue();
  }

  void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
    }
    log("parent: kill -" + signal + " " + process.pid() + " (" + name + ")");
  }

  void kill() {
    process.destroyForcibly();
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // gone
    }
  }

  private Thread relay(InputStream stream, String prefix, boolean killAtPoint) {
    Thread t = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (killAtPoint && killedAt == null && line.startsWith(StopAtPoint.ANNOUNCEMENT)) {
            killedAt = line.substring(StopAtPoint.ANNOUNCEMENT.length()).trim();
            process.destroyForcibly(); // SIGKILL
            log("parent: kill -9 " + process.pid() + " (" + name + ")");
          }
          synchronized (lines) {
            lines.add(line);
            lines.notifyAll();
          }
          log(prefix + line);
        }
      } catch (IOException e) {
        // the child is gone
      }
      synchronized (lines) {
        lines.notifyAll();
      }
    }, "takeover-relay-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void log(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }

  /** The test class path (under Failsafe, the booter jar's class path is in a property). */
  static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return Stream.of(cp.split(File.pathSeparator))
        .filter(s -> !s.isBlank())
        .map(s -> Path.of(s).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }
}
