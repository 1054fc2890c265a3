package dev.twophase.crash;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

  /** The system property that names a child's crash point: {@code POINT} or {@code POINT:n}. */
  public static final String CRASH_AT = "twophase.crashAt";

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

  /**
   * A finished child of a crash scenario: its number within the scenario, the crash point it was
   * armed with ({@code null}: none), how it ended, and its files.
   */
  public record Run(
      int number, String crashAt, int exitCode, boolean timedOut,
      Path stdout, Path stderr, Path threads, Path report) {

    /** Whether the child got through recovery and wrote its report. */
    public boolean recovered() {
      return Files.exists(report);
    }

    public String out() {
      return read(stdout);
    }

    public String err() {
      return read(stderr);
    }

    /** Everything about this child, for an assertion message. */
    public String describe() {
      return "child #" + number + " crashAt=" + crashAt
          + (timedOut ? " TIMED OUT" : " exit=" + exitCode)
          + "\n--- stdout (" + stdout + ")\n" + tail(out()) + "\n--- stderr (" + stderr + ")\n"
          + tail(err()) + "\n---"
          + (timedOut ? "\n--- threads at the timeout\n" + tail(read(threads)) + "\n---" : "");
    }

    private static String read(Path file) {
      try {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      } catch (IOException e) {
        return "(could not read " + file + ": " + e + ")";
      }
    }

    private static String tail(String s) {
      int max = 12_000;
      return s.length() <= max ? s : "...(" + (s.length() - max) + " chars cut)...\n" + s.substring(s.length() - max);
    }
  }

  /**
   * Runs child number {@code number} of a scenario in {@code dir}: {@code main} with
   * {@code properties}, armed with {@code crashAt} ("POINT" or "POINT:n", or {@code null}), and
   * {@code args} followed by the path of its report. Its files are {@code child-<number>.out},
   * {@code .err}, {@code .threads} (if it hangs) and {@code .recovered} (the report) in
   * {@code dir}.
   */
  public static Run runNumbered(
      Path dir, int number, Class<?> main, Map<String, String> properties, String crashAt,
      List<String> args, Duration timeout) throws IOException, InterruptedException {
    Path stdout = dir.resolve("child-" + number + ".out");
    Path stderr = dir.resolve("child-" + number + ".err");
    Path threads = dir.resolve("child-" + number + ".threads");
    Path report = dir.resolve("child-" + number + ".recovered");
    Map<String, String> props = new LinkedHashMap<>(properties);
    if (crashAt != null) {
      props.put(CRASH_AT, crashAt);
    }
    List<String> allArgs = new ArrayList<>(args);
    allArgs.add(report.toString());
    Result result = run(command(main, props, allArgs), stdout, stderr, threads, timeout);
    return new Run(number, crashAt, result.exitCode(), result.timedOut(), stdout, stderr, threads, report);
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
