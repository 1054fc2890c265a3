package dev.twophase.crash;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts the child JVMs of crash tests (core's and other modules', through core's test-jar): small
 * heap, quick start, the test class path, output to files, and a thread dump if one hangs.
 */
public final class ChildJvm {

  /** How a child ended. {@code exitCode} is -1 if it timed out and was killed. */
  public record Result(int exitCode, boolean timedOut) {}

  private ChildJvm() {}

  /** {@code java <crash-test flags> -D<props> -cp <test class path> <main> <args>}. */
  public static List<String> command(Class<?> main, Map<String, String> properties, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx128m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
    cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-cp");
    cmd.add(CrashScenario.classPath());
    cmd.add(main.getName());
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Runs {@code command} with no input and its output in two files; after {@code timeout} saves
   * the child's threads to {@code threadDump} and kills it.
   */
  public static Result run(List<String> command, Path stdout, Path stderr, Path threadDump, Duration timeout)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command)
        .redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile())
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .start();
    p.getOutputStream().close();
    boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!finished) {
      threadDump(p.pid(), threadDump);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    return new Result(finished ? p.exitValue() : -1, !finished);
  }

  /** Saves the threads of a hung child, to show where it hangs. */
  private static void threadDump(long pid, Path into) {
    try {
      Process jcmd = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid), "Thread.print")
          .redirectErrorStream(true)
          .redirectOutput(into.toFile())
          .start();
      if (!jcmd.waitFor(20, TimeUnit.SECONDS)) {
        jcmd.destroyForcibly();
      }
    } catch (IOException e) {
      // no jcmd (a JRE): the timeout is reported without the threads
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
