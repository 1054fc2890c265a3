package dev.twophase.testkit.crash;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts one child JVM of a crash test and waits for it: the test JVM's Java and class path, its
 * output in files, and, if it does not end within the timeout, a thread dump ({@code jcmd
 * Thread.print}) before it is killed. The child never outlives the call: it is killed if the
 * waiting thread is interrupted too.
 */
final class ChildJvm {

  /** How a child ended; {@code exitCode} is -1 if it timed out and was killed. */
  record Result(int exitCode, boolean timedOut, Path stdout, Path stderr, Path threads) {

    String out() {
      return read(stdout);
    }

    String err() {
      return read(stderr);
    }

    String threadDump() {
      return read(threads);
    }

    private static String read(Path file) {
      try {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      } catch (IOException e) {
        return "(could not read " + file + ": " + e + ")";
      }
    }
  }

  private ChildJvm() {}

  /**
   * The class path for the child: Surefire and Failsafe put the test class path in
   * {@code surefire.test.class.path} (their own JVM may run from a manifest-only booter jar);
   * otherwise the JVM's own, which under a manifest-only jar is that jar, whose manifest lists the
   * real class path, so it works too.
   */
  static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return cp;
  }

  /** {@code java <options> -D<properties> -cp <test class path> <main> <args>}. */
  static List<String> command(List<String> options, Map<String, String> properties, Class<?> main, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.addAll(options);
    properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(main.getName());
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Runs {@code command} with no input and its output in {@code <prefix>.out} and {@code .err}; after
   * {@code timeout} saves its threads to {@code <prefix>.threads} and kills it.
   */
  static Result run(List<String> command, Path directory, String prefix, Duration timeout)
      throws IOException, InterruptedException {
    Path stdout = directory.resolve(prefix + ".out");
    Path stderr = directory.resolve(prefix + ".err");
    Path threads = directory.resolve(prefix + ".threads");
    Process p = new ProcessBuilder(command)
        .redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile())
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .start();
    try {
      p.getOutputStream().close();
      boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        threadDump(p.pid(), threads);
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
      return new Result(finished ? p.exitValue() : -1, !finished, stdout, stderr, threads);
    } finally {
      if (p.isAlive()) { // interrupted while waiting: the child must not outlive the test
        p.destroyForcibly();
      }
    }
  }

  /** Saves the threads of a hung child, to show where it hangs. */
  private static void threadDump(long pid, Path into) {
    try {
      Process jcmd = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid), "Thread.print")
          .redirectErrorStream(true)
          .redirectOutput(into.toFile())
          .start();
      try {
        if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
          jcmd.destroyForcibly();
        }
      } finally {
        if (jcmd.isAlive()) {
          jcmd.destroyForcibly();
        }
      }
    } catch (IOException e) {
      try {
        Files.writeString(into, "(no thread dump: jcmd could not run: " + e + ")", StandardCharsets.UTF_8);
      } catch (IOException ignored) {
        // the timeout is reported without the threads
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
