package dev.twophase.demo;

import dev.twophase.demo.Demo.ChildRun;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The demo's child JVMs: one runs the {@link DemoJob}, its output relayed to the parent's, and is
 * killed with {@code SIGKILL} when the job announces the planned protocol point ({@link
 * WaitForKill}).
 */
final class ChildJvms {

  private static final Pattern RESTORED =
      Pattern.compile(Pattern.quote(DemoJob.RESTORED) + "([0-9]+) restored from checkpoint ([0-9]+)");

  private final Demo.Options options;
  private final PrintStream out;

  ChildJvms(Demo.Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /**
   * Runs jvm {@code number} of the demo to its end, or kills it at {@code crashAt} (null: runs it
   * to the end) or when it outlives the child timeout.
   */
  ChildRun run(int number, String crashAt, Path work, String bootstrapServers, long segmentBytes,
      Stopper stopper)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A short-lived JVM: the client compiler alone costs a third of the CPU time that tiered
    // compilation's optimizing compiler spends on its classes (H2, the Kafka client, the library).
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(DemoJob.class.getName());
    cmd.add(work.toString());
    cmd.add(Long.toString(options.records()));
    cmd.add(Integer.toString(options.checkpointEvery()));
    cmd.add(Integer.toString(options.partRecords()));
    cmd.add(Long.toString(segmentBytes));
    cmd.add(bootstrapServers);
    cmd.add(crashAt == null ? "none" : crashAt);

    long started = System.nanoTime();
    // The child's standard input stays open while it runs: it stops itself when that closes.
    Process process = stopper.child(() -> new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start());
    try {
      List<String> lines = Collections.synchronizedList(new ArrayList<>());
      AtomicReference<String> killedAt = new AtomicReference<>();
      Thread stdout = relay(process.getInputStream(), "  jvm " + number + " | ", lines, line -> {
        if (crashAt != null && line.startsWith(WaitForKill.ANNOUNCEMENT) && killedAt.get() == null) {
          killedAt.set(line.substring(WaitForKill.ANNOUNCEMENT.length()).trim());
          process.destroyForcibly(); // SIGKILL, as kill -9
          synchronized (out) {
            out.println("parent: kill -9 " + process.pid() + " (jvm " + number + ")");
            out.flush();
          }
        }
      });
      Thread stderr = relay(process.getErrorStream(), "  jvm " + number + " ! ", lines, line -> {});
      boolean finished = process.waitFor(options.childTimeout().toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        process.destroyForcibly();
        process.waitFor();
      }
      stdout.join();
      stderr.join();
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      long restored = -1;
      synchronized (lines) {
        for (String line : lines) {
          Matcher m = RESTORED.matcher(line);
          if (m.matches()) {
            restored = Long.parseLong(m.group(1));
          }
        }
        return new ChildRun(number, process.pid(), crashAt, process.exitValue(), !finished, killedAt.get(), restored,
            List.copyOf(lines), took);
      }
    } finally {
      process.destroyForcibly(); // on every way out, a no-op if it ended
      process.waitFor();
      process.getOutputStream().close();
      stopper.childEnded();
    }
  }

  private Thread relay(InputStream stream, String prefix, List<String> lines,
      java.util.function.Consumer<String> onLine) {
    Thread t = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          lines.add(line);
          synchronized (out) {
            out.println(prefix + line);
            out.flush();
          }
          onLine.accept(line);
        }
      } catch (IOException e) {
        // the child is gone
      }
    }, "demo-relay");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * The child's class path: this jar when run with {@code java -jar}; the test class path under
   * Failsafe (whose own class path may be a manifest-only booter jar).
   */
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
