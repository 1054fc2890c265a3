package dev.twophase.demo;

import dev.twophase.Codecs;
import dev.twophase.internal.CrashPoint;
import dev.twophase.testing.CrashInjector;
import dev.twophase.internal.StateCodec;
import dev.twophase.internal.log.LogInspector;
import dev.twophase.internal.log.LogSnapshot;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The demo's parent process: prepares a work directory, runs the {@link DemoJob} in one child JVM
 * that halts itself at a protocol point, then in a second one that recovers and runs to the end,
 * and finally checks the committed output of both sinks on its own: every input record exactly
 * once.
 */
public final class Demo {

  /** Marks a directory as the demo's, so that a later run may empty it. */
  static final String MARKER = ".twophase-demo";

  /** The demo's settings. */
  public record Options(
      Path dir, long records, int checkpointEvery, int partRecords, String crashAt, long seed,
      Duration childTimeout) {

    public static Options defaults() {
      return new Options(null, 200_000, 10_000, 5_000, null, System.nanoTime() & 0xffff,
          Duration.ofMinutes(10));
    }

    public Options withDir(Path d) {
      return new Options(d, records, checkpointEvery, partRecords, crashAt, seed, childTimeout);
    }

    public Options withRecords(long n) {
      return new Options(dir, n, checkpointEvery, partRecords, crashAt, seed, childTimeout);
    }

    public Options withCheckpointEvery(int k) {
      return new Options(dir, records, k, partRecords, crashAt, seed, childTimeout);
    }

    public Options withPartRecords(int p) {
      return new Options(dir, records, checkpointEvery, p, crashAt, seed, childTimeout);
    }

    public Options withCrashAt(String c) {
      return new Options(dir, records, checkpointEvery, partRecords, c, seed, childTimeout);
    }

    public Options withSeed(long s) {
      return new Options(dir, records, checkpointEvery, partRecords, crashAt, s, childTimeout);
    }

    public Options withChildTimeout(Duration t) {
      return new Options(dir, records, checkpointEvery, partRecords, crashAt, seed, t);
    }

    void validate() {
      if (records < 0 || records > 100_000_000) {
        throw new IllegalArgumentException("--records must be in [0, 100000000], was " + records);
      }
      if (checkpointEvery < 1) {
        throw new IllegalArgumentException("--checkpoint-every must be >= 1, was " + checkpointEvery);
      }
      if (partRecords < 1) {
        throw new IllegalArgumentException("--part-records must be >= 1, was " + partRecords);
      }
    }
  }

  /** One child JVM. */
  public record ChildRun(int number, String crashAt, int exitCode, boolean timedOut, List<String> output,
      Duration took) {

    public boolean crashed() {
      return !timedOut && exitCode == CrashInjector.EXIT_CODE;
    }

    public boolean succeeded() {
      return !timedOut && exitCode == 0;
    }
  }

  /** What a demo run found. */
  public record Result(
      boolean ok, Path workDir, List<ChildRun> children, List<Sinks.Check> checks,
      long decidedCheckpoints, List<String> problems) {}

  private final Options options;
  private final PrintStream out;

  private Demo(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the demo, printing to {@code out}. */
  public static Result run(Options options, PrintStream out) throws IOException, InterruptedException {
    options.validate();
    return new Demo(options, out).run();
  }

  private Result run() throws IOException, InterruptedException {
    long start = System.nanoTime();
    long n = options.records();
    int every = options.checkpointEvery();
    CrashPlan plan = options.crashAt() == null
        ? CrashPlan.parse("AFTER_LOG_APPEND", n, every, options.seed())
        : CrashPlan.parse(options.crashAt(), n, every, options.seed());
    long segmentBytes = plan.compacts() ? CrashPlan.SMALL_SEGMENT_BYTES : 16L * 1024 * 1024;
    Path work = prepare(options.dir() != null ? options.dir() : defaultDir());

    out.println("twophase demo: exactly-once output through two-phase commit, across a crash");
    out.println("work directory: " + work);
    out.println("input:          " + n + " generated orders {\"id\":i,\"customer\":\"c-<i%97>\",\"amount\":...}, "
        + "read by position");
    out.println("job:            coordinator '" + DemoJob.COORDINATOR + "', state log in state/, two file "
        + "participants: out/orders (JSON lines), out/ledger (CSV id,amount)");
    out.println("checkpoints:    every " + every + " records, " + CrashPlan.checkpoints(n, every)
        + " in a complete run (the last one by finish()); the input position is stored in each");
    if (plan.crashes().isEmpty()) {
      out.println("crash plan:     none (" + plan.origin() + ")");
    }
    for (int i = 0; i < plan.crashes().size(); i++) {
      CrashPlan.Crash c = plan.crashes().get(i);
      out.println((i == 0 ? "crash plan:     " : "                ") + "jvm " + (i + 1) + " halts at "
          + c.property() + " (" + plan.origin() + "): " + c.meaning(i == 0));
    }
    out.flush();

    List<ChildRun> children = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Set<Path> leftInProgress = new LinkedHashSet<>();
    int steps = plan.crashes().size() + 2;
    boolean crashedLast = false;
    for (int i = 0; i < plan.crashes().size(); i++) {
      CrashPlan.Crash crash = plan.crashes().get(i);
      int number = i + 1;
      out.println();
      out.println("[" + number + "/" + steps + "] jvm " + number + ": "
          + (i == 0 ? "the job, from a fresh state log" : "the same job, recovering")
          + ", armed to crash (-D" + DemoJob.CRASH_AT + "=" + crash.property() + ")");
      ChildRun child = runChild(number, crash.property(), work, segmentBytes);
      children.add(child);
      crashedLast = child.crashed();
      if (child.crashed()) {
        String where = i == 0 || crash.point() == CrashPoint.DURING_RECOVERY_COMMIT
            ? " " + where(crash) : "";
        out.printf("jvm %d crashed at %s (exit %d)%s, %.1f s%n", number, crash.point(),
            child.exitCode(), where, seconds(child.took()));
        afterCrash(work, leftInProgress);
      } else if (child.succeeded()) {
        out.println("jvm " + number + " ran to the end without reaching " + crash.property()
            + " (use a smaller hit count): no crash to recover from");
        break;
      } else {
        problems.add("jvm " + number + (child.timedOut() ? " timed out" : " failed with exit " + child.exitCode()));
        out.println("jvm " + number + (child.timedOut() ? " timed out and was killed" : " failed (exit "
            + child.exitCode() + ")"));
        break;
      }
    }

    if (problems.isEmpty() && (crashedLast || plan.crashes().isEmpty())) {
      int number = children.size() + 1;
      out.println();
      out.println("[" + number + "/" + steps + "] jvm " + number + ": "
          + (children.isEmpty() ? "the job, from a fresh state log, no crash"
              : "the same job, no crash: recovers, then runs to the end"));
      ChildRun child = runChild(number, null, work, segmentBytes);
      children.add(child);
      if (child.succeeded()) {
        out.printf("jvm %d exited 0, %.1f s%n", number, seconds(child.took()));
      } else {
        problems.add("jvm " + number + (child.timedOut() ? " timed out" : " failed with exit " + child.exitCode()));
        out.println("jvm " + number + (child.timedOut() ? " timed out and was killed" : " failed (exit "
            + child.exitCode() + ")"));
      }
      if (!leftInProgress.isEmpty()) {
        reportInProgressFate(work, leftInProgress);
      }
    }

    out.println();
    out.println("[" + steps + "/" + steps + "] verification: reading only the committed files of both sinks");
    long verifyStart = System.nanoTime();
    Sinks.Check orders = Sinks.check(DemoJob.ORDERS, DemoJob.sinkDir(work, DemoJob.ORDERS), n, true);
    Sinks.Check ledger = Sinks.check(DemoJob.LEDGER, DemoJob.sinkDir(work, DemoJob.LEDGER), n, false);
    out.println("  records in:          " + n);
    for (Sinks.Check c : List.of(orders, ledger)) {
      out.printf("  %-20s %d records in %d files, duplicates %d, lost %d%s%n", c.sink() + " sink:",
          c.records(), c.files(), c.duplicates(), c.lost(),
          c.unexpected() == 0 ? "" : ", unexpected " + c.unexpected());
      if (c.sample() != null) {
        out.println("  " + " ".repeat(21) + "e.g. " + c.sample());
      }
      if (!c.ok()) {
        problems.add(c.sink() + " sink: " + c.records() + " records, " + c.distinct() + " distinct, duplicates "
            + c.duplicates() + ", lost " + c.lost() + ", unexpected " + c.unexpected() + "; e.g. " + c.examples());
      }
    }
    LogState log = readLog(work);
    long decided = log == null ? 0 : log.checkpoint();
    if (log == null) {
      out.println("  checkpoints decided: none (no state in the log)");
      problems.add("the state log holds no state for coordinator '" + DemoJob.COORDINATOR + "'");
    } else {
      out.println("  checkpoints decided: " + log.checkpoint() + " (state log: last checkpoint " + log.checkpoint()
          + (log.finished() ? ", finished" : ", not finished") + ", input position " + log.positionText()
          + ", completion mark " + log.completed() + ")");
      if (!log.finished() || log.position() == null || log.position() != n) {
        problems.add("the state log's last checkpoint is " + (log.finished() ? "" : "not finished, ")
            + "at input position " + log.positionText() + ", not " + n);
      }
    }
    List<Path> leftovers = new ArrayList<>(Sinks.list(DemoJob.sinkDir(work, DemoJob.ORDERS)).inProgress());
    leftovers.addAll(Sinks.list(DemoJob.sinkDir(work, DemoJob.LEDGER)).inProgress());
    out.println("  in-progress files:   " + leftovers.size() + " left");
    long crashes = children.stream().filter(ChildRun::crashed).count();
    out.printf("  time taken:          %.1f s (%s, verification %.1f s)%n",
        seconds(Duration.ofNanos(System.nanoTime() - start)),
        children.stream().map(c -> String.format("jvm %d %.1f s", c.number(), seconds(c.took())))
            .collect(Collectors.joining(", ")),
        seconds(Duration.ofNanos(System.nanoTime() - verifyStart)));
    if (crashes == 0 && !plan.crashes().isEmpty()) {
      out.println("  note: no JVM crashed, so this run did not exercise recovery");
    }
    boolean ok = problems.isEmpty();
    out.println(ok ? "exactly-once: OK" : "exactly-once: FAILED");
    for (String p : problems) {
      out.println("  " + p);
    }
    out.flush();
    return new Result(ok, work, List.copyOf(children), List.of(orders, ledger), decided, List.copyOf(problems));
  }

  private String where(CrashPlan.Crash crash) {
    long n = options.records();
    int every = options.checkpointEvery();
    long cp = crash.checkpoint();
    long at = Math.min(cp * every, n);
    return switch (crash.point()) {
      case BEFORE_PRE_COMMIT, BETWEEN_PRE_COMMITS, AFTER_PRE_COMMITS, AFTER_LOG_APPEND ->
          "in checkpoint " + cp + ", after " + at + " records";
      case DURING_LOG_APPEND -> cp == 0 ? "while writing the initial record" : "in checkpoint " + cp + ", after " + at + " records";
      case BETWEEN_COMMITS, AFTER_COMMITS -> "while committing checkpoint " + cp + " (decided after " + at
          + " records; the writer may have gone on)";
      case DURING_RECOVERY_COMMIT -> "during recovery";
      case DURING_COMPACTION -> "during a compaction of the state log";
    };
  }

  // ------------------------------------------------------------------ disk, as the crash left it

  private void afterCrash(Path work, Set<Path> leftInProgress) {
    out.println("what the crashed JVM left on disk:");
    LogState log = readLog(work);
    if (log == null) {
      out.println("  state log:   no state record (nothing decided)");
    } else {
      out.println("  state log:   " + (log.checkpoint() == 0 ? "no checkpoint decided yet (the initial record only)"
          : "last decided checkpoint " + log.checkpoint() + " (input position " + log.positionText()
              + "), completion mark " + log.completed())
          + (log.tornTail() ? ", a torn record at the end (it will be cut off)" : ""));
    }
    for (String sink : List.of(DemoJob.ORDERS, DemoJob.LEDGER)) {
      Sinks.Listing listing = Sinks.list(DemoJob.sinkDir(work, sink));
      out.printf("  %-12s %s%n", sink + ":", listing.describe());
      leftInProgress.addAll(listing.inProgress());
    }
  }

  private void reportInProgressFate(Path work, Set<Path> leftInProgress) {
    List<String> committed = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<String> remaining = new ArrayList<>();
    for (Path p : leftInProgress) {
      String name = work.relativize(p).toString();
      if (Files.exists(Sinks.committedName(p))) {
        committed.add(name);
      } else if (Files.exists(p)) {
        remaining.add(name);
      } else {
        deleted.add(name);
      }
    }
    out.println("in-progress files left by the crash: " + leftInProgress.size() + "; committed by recovery "
        + "(renamed to part-*): " + committed.size() + ", deleted (never decided): " + deleted.size()
        + (remaining.isEmpty() ? "" : ", still there: " + remaining.size()));
    for (String c : committed) {
      out.println("  renamed: " + c + " -> " + Sinks.committedName(Path.of(c)).getFileName());
    }
    for (String d : deleted) {
      out.println("  deleted: " + d);
    }
    for (String r : remaining) {
      out.println("  still there: " + r);
    }
  }

  /** The coordinator's last state in the log, read without taking the log's lock. */
  record LogState(long checkpoint, Long position, boolean finished, long completed, boolean tornTail) {
    String positionText() {
      return position == null ? "none" : position.toString();
    }
  }

  static LogState readLog(Path work) {
    Path dir = DemoJob.stateDir(work);
    if (!Files.isDirectory(dir)) {
      return null;
    }
    LogSnapshot snapshot = LogInspector.read(dir);
    LogSnapshot.Coordinator c = snapshot.coordinators().get(DemoJob.COORDINATOR);
    if (c == null || c.lastState() == null) {
      return null;
    }
    StateCodec.CoordinatorRecord record = StateCodec.decode(c.lastState().payload(), dir.toString());
    Long position = null;
    if (record.application() != null) {
      try {
        position = Codecs.json(Long.class).decode(record.application().bytes(), record.application().version());
      } catch (Exception e) {
        throw new IllegalStateException("cannot read the input position in " + dir + ": " + e, e);
      }
    }
    return new LogState(record.checkpointId(), position, record.finished(), c.lastCompletedCheckpointId(),
        snapshot.tailInProgress().isPresent());
  }

  // ------------------------------------------------------------------ child JVMs

  private ChildRun runChild(int number, String crashAt, Path work, long segmentBytes)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:+UseSerialGC");
    if (crashAt != null) {
      cmd.add("-D" + DemoJob.CRASH_AT + "=" + crashAt);
    }
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(DemoJob.class.getName());
    cmd.add(work.toString());
    cmd.add(Long.toString(options.records()));
    cmd.add(Integer.toString(options.checkpointEvery()));
    cmd.add(Integer.toString(options.partRecords()));
    cmd.add(Long.toString(segmentBytes));

    long started = System.nanoTime();
    Process process = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start();
    process.getOutputStream().close();
    Thread killer = new Thread(process::destroyForcibly, "demo-child-killer");
    Runtime.getRuntime().addShutdownHook(killer); // Ctrl-C on the demo stops the child too
    List<String> lines = Collections.synchronizedList(new ArrayList<>());
    Thread stdout = relay(process.getInputStream(), "  jvm " + number + " | ", lines);
    Thread stderr = relay(process.getErrorStream(), "  jvm " + number + " ! ", lines);
    boolean finished = process.waitFor(options.childTimeout().toMillis(), TimeUnit.MILLISECONDS);
    if (!finished) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    stdout.join(10_000);
    stderr.join(10_000);
    try {
      Runtime.getRuntime().removeShutdownHook(killer);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    synchronized (lines) {
      return new ChildRun(number, crashAt, finished ? process.exitValue() : -1, !finished, List.copyOf(lines), took);
    }
  }

  private Thread relay(InputStream stream, String prefix, List<String> lines) {
    Thread t = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          lines.add(line);
          synchronized (out) {
            out.println(prefix + line);
            out.flush();
          }
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

  // ------------------------------------------------------------------ work directory

  /** Next to the jar (demo/target/twophase-demo-run) when run from it, else a new temporary one. */
  static Path defaultDir() throws IOException {
    try {
      Path location = Path.of(Demo.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(location) && location.toString().endsWith(".jar")) {
        return location.toAbsolutePath().getParent().resolve("twophase-demo-run");
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall through
    }
    return Files.createTempDirectory("twophase-demo-");
  }

  /** Creates an empty work directory, emptying one of an earlier demo run; refuses anything else. */
  static Path prepare(Path dir) throws IOException {
    Path work = dir.toAbsolutePath().normalize();
    if (Files.exists(work)) {
      if (!Files.isDirectory(work)) {
        throw new IllegalArgumentException(work + " exists and is not a directory");
      }
      boolean empty;
      try (Stream<Path> entries = Files.list(work)) {
        empty = entries.findAny().isEmpty();
      }
      if (!empty) {
        if (!Files.exists(work.resolve(MARKER))) {
          throw new IllegalArgumentException(work + " is not empty and not an earlier demo run (no "
              + MARKER + " file); choose another --dir");
        }
        try (Stream<Path> all = Files.walk(work)) {
          for (Path p : all.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
            if (!p.equals(work)) {
              Files.delete(p);
            }
          }
        } catch (UncheckedIOException e) {
          throw e.getCause();
        }
      }
    }
    Files.createDirectories(work);
    Files.writeString(work.resolve(MARKER), "work directory of the twophase demo; the next run empties it\n");
    return work;
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
