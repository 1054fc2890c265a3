package dev.twophase.crash;

import dev.twophase.testing.CrashInjector;
import java.io.IOException;
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

  /** A finished child JVM (see {@link ChildJvm.Run}), with what this scenario reads from it. */
  public final class Child {
    public final int number;
    public final String crashAt;
    public final int exitCode;
    public final boolean timedOut;
    public final Path stdout;
    public final Path stderr;
    public final Path report;
    private final ChildJvm.Run run;

    Child(ChildJvm.Run run) {
      this.run = run;
      this.number = run.number();
      this.crashAt = run.crashAt();
      this.exitCode = run.exitCode();
      this.timedOut = run.timedOut();
      this.stdout = run.stdout();
      this.stderr = run.stderr();
      this.report = run.report();
    }

    public boolean crashed() {
      return !timedOut && exitCode == CrashInjector.EXIT_CODE;
    }

    public boolean done() {
      return !timedOut && exitCode == 0 && out().lines().anyMatch("DONE"::equals);
    }

    /** Whether the child got through recovery and reported what it saw. */
    public boolean recovered() {
      return run.recovered();
    }

    public CrashChecker.RecoveryReport recoveryReport() throws IOException {
      return CrashChecker.readRecoveryReport(report);
    }

    public String out() {
      return run.out();
    }

    public String err() {
      return run.err();
    }

    /** Whether the child logged the injected crash of {@code point}. */
    public boolean loggedCrashAt(String point) {
      return err().contains("crash injected at " + point);
    }

    /** Everything about this child, for an assertion message. */
    public String describe() {
      return "of " + CrashScenario.this + (timedOut ? ", timeout " + CHILD_TIMEOUT : "") + ": "
          + run.describe();
    }
  }

  /** Runs the next child, armed with {@code crashAt} ("POINT" or "POINT:n"), or clean if null. */
  public Child run(String crashAt) throws IOException, InterruptedException {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(CrashChild.SEGMENT_BYTES, Long.toString(segmentBytes));
    properties.put(CrashChild.BYSTANDERS, Integer.toString(bystanders));
    Child child = new Child(ChildJvm.runNumbered(root, children.size() + 1, CrashChild.class, properties,
        crashAt, List.of(stateDir().toString(), dataDir().toString(), Long.toString(n),
            Integer.toString(k), mode),
        CHILD_TIMEOUT));
    children.add(child);
    if (child.crashed()) {
      ChildProgram.tearLastWrite(stateDir(), crashAt);
    }
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
}
