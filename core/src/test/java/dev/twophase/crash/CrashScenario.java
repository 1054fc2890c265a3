package dev.twophase.crash;

import dev.twophase.internal.Faults;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One crash test's directories and the child JVMs run over them, one after the other: each child
 * is a new incarnation of the same application over the same state log and participant
 * directories. Every child's stdout/stderr goes to files in the scenario directory and is attached
 * to failure messages.
 */
public final class CrashScenario {

  /**
   * How long one child may run before it is killed and the test fails (a child normally needs about
   * a second); {@code -Dcrash.childTimeout=PT2M} changes it for slow machines.
   */
  public static final Duration CHILD_TIMEOUT =
      Duration.parse(System.getProperty("crash.childTimeout", "PT60S").trim());

  private final Path root;
  private final long n;
  private final int k;
  private final String mode;
  private final long segmentBytes;
  private final int bystanders;
  private final List<Child> children = new ArrayList<>();

  public CrashScenario(Path root, long n, int k, String mode, long segmentBytes, int bystanders) throws IOException {
    this.root = Files.createDirectories(root);
    this.n = n;
    this.k = k;
    this.mode = mode;
    this.segmentBytes = segmentBytes;
    this.bystanders = bystanders;
    Files.createDirectories(stateDir());
    Files.createDirectories(dataDir());
  }

  public Path stateDir() {
    return root.resolve("state");
  }

  public Path dataDir() {
    return root.resolve("data");
  }

  public long n() {
    return n;
  }

  public int k() {
    return k;
  }

  public List<Child> children() {
    return children;
  }

  @Override
  public String toString() {
    return "scenario[N=" + n + " k=" + k + " mode=" + mode + " segmentBytes=" + segmentBytes
        + " bystanders=" + bystanders + " dir=" + root + "]";
  }

  /** A finished child JVM. */
  public final class Child {
    public final int number;
    public final String crashAt;
    public final int exitCode;
    public final boolean timedOut;
    public final Path stdout;
    public final Path stderr;
    public final Path report;

    Child(int number, String crashAt, int exitCode, boolean timedOut, Path stdout, Path stderr, Path report) {
      this.number = number;
      this.crashAt = crashAt;
      this.exitCode = exitCode;
      this.timedOut = timedOut;
      this.stdout = stdout;
      this.stderr = stderr;
      this.report = report;
    }

    public boolean crashed() {
      return !timedOut && exitCode == Faults.CRASH_EXIT_CODE;
    }

    public boolean done() {
      return !timedOut && exitCode == 0 && out().lines().anyMatch("DONE"::equals);
    }

    /** Whether the child got through recovery and reported what it saw. */
    public boolean recovered() {
      return Files.exists(report);
    }

    public CrashChecker.RecoveryReport recoveryReport() throws IOException {
      return CrashChecker.readRecoveryReport(report);
    }

    public String out() {
      return read(stdout);
    }

    public String err() {
      return read(stderr);
    }

    /** Whether the child logged the injected crash of {@code point}. */
    public boolean loggedCrashAt(String point) {
      return err().contains("crash injected at " + point);
    }

    /** Everything about this child, for an assertion message. */
    public String describe() {
      return "child #" + number + " of " + CrashScenario.this + " crashAt=" + crashAt
          + (timedOut ? " TIMED OUT after " + CHILD_TIMEOUT : " exit=" + exitCode)
          + "\n--- stdout (" + stdout + ")\n" + tail(out()) + "\n--- stderr (" + stderr + ")\n"
          + tail(err()) + "\n---"
          + (timedOut ? "\n--- threads at the timeout\n" + tail(read(root.resolve("child-" + number + ".threads"))) + "\n---" : "");
    }
  }

  /** Runs the next child, armed with {@code crashAt} ("POINT" or "POINT:n"), or clean if null. */
  public Child run(String crashAt) throws IOException, InterruptedException {
    int number = children.size() + 1;
    Path stdout = root.resolve("child-" + number + ".out");
    Path stderr = root.resolve("child-" + number + ".err");
    Path report = root.resolve("child-" + number + ".recovered");
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(CrashChild.SEGMENT_BYTES, Long.toString(segmentBytes));
    properties.put(CrashChild.BYSTANDERS, Integer.toString(bystanders));
    if (crashAt != null) {
      properties.put(Faults.PROPERTY, crashAt);
    }
    List<String> cmd = ChildJvm.command(CrashChild.class, properties, List.of(
        stateDir().toString(), dataDir().toString(), Long.toString(n), Integer.toString(k), mode,
        report.toString()));
    ChildJvm.Result result =
        ChildJvm.run(cmd, stdout, stderr, root.resolve("child-" + number + ".threads"), CHILD_TIMEOUT);
    Child child = new Child(number, crashAt, result.exitCode(), result.timedOut(), stdout, stderr, report);
    children.add(child);
    return child;
  }

  /**
   * The class path for the child: Surefire and Failsafe put the test class path in
   * {@code surefire.test.class.path}; else the JVM's own (which under a manifest-only booter jar is
   * that jar, whose manifest lists the real class path, so it works too).
   */
  public static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    return cp;
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
