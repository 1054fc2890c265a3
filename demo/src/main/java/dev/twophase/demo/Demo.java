package dev.twophase.demo;

import dev.twophase.FileStateLog;
import dev.twophase.ProtocolPoint;
import dev.twophase.StateLogSnapshot;
import dev.twophase.testing.PowerLoss;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The demo's parent process: prepares a work directory, starts a Kafka broker in this JVM, runs
 * the {@link DemoJob} in a child JVM that it kills with {@code SIGKILL} when the job announces the
 * planned protocol point, then in a second child JVM that recovers and runs to the end, and finally
 * checks all four sinks on its own, the way their readers read them: every input record exactly
 * once.
 *
 * <p>Nothing outlives a run: the broker is stopped and a running child killed on every way out,
 * including a failure and Ctrl-C (a shutdown hook).
 */
public final class Demo {

  /** Marks a directory as the demo's, so that a later run may empty it. */
  static final String MARKER = ".twophase-demo";

  /** Exit status of a JVM killed by {@code SIGKILL} (128 + 9). */
  public static final int SIGKILL_EXIT = 137;

  private static final Pattern FINISHED =
      Pattern.compile("finished: checkpoint ([0-9]+) committed, ([0-9]+) records in total.*");
  private static final Pattern RESTORED =
      Pattern.compile(Pattern.quote(DemoJob.RESTORED) + "([0-9]+) restored from checkpoint ([0-9]+)");

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
      if (childTimeout.isNegative() || childTimeout.isZero()) {
        throw new IllegalArgumentException("--child-timeout must be > 0, was " + childTimeout.toSeconds());
      }
    }
  }

  /**
   * One child JVM.
   *
   * @param killedAt the {@code POINT:HIT} the job announced before the parent killed it, or null
   * @param restoredPosition the input position the job resumed from after recovery, or -1
   */
  public record ChildRun(int number, long pid, String crashAt, int exitCode, boolean timedOut, String killedAt,
      long restoredPosition, List<String> output, Duration took) {

    /** Killed by the parent at the protocol point it announced. */
    public boolean killed() {
      return killedAt != null && !timedOut;
    }

    public boolean succeeded() {
      return killedAt == null && !timedOut && exitCode == 0;
    }
  }

  /** The run was stopped from outside (Ctrl-C, SIGTERM): the child JVM was killed, the broker stopped. */
  public static final class StoppedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StoppedException() {
      super("the demo was stopped: the running job was killed and the broker stopped");
    }
  }

  /** What a demo run found. */
  public record Result(
      boolean ok, Path workDir, List<ChildRun> children, List<SinkCheck> checks, long finishedCheckpoint,
      long finishedRecords, List<String> problems) {}

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
    CrashPlan plan = CrashPlan.parse(options.crashAt() == null ? "AFTER_LOG_APPEND" : options.crashAt(),
        n, every, options.seed());
    Path work = prepare(options.dir() != null ? options.dir() : defaultDir());

    out.println("twophase demo: exactly-once output through two-phase commit, across a kill -9");
    out.println("work directory: " + work);
    out.println("input:          " + n + " generated orders {\"id\":i,\"customer\":\"c-<i%97>\",\"amount\":...}, "
        + "read by position");
    out.println("job:            coordinator '" + DemoJob.COORDINATOR + "', state log in state/, four participants:");
    out.println("                  orders  files of JSON lines in out/orders (FileParticipant)");
    out.println("                  ledger  files of CSV id,amount lines in out/ledger (FileParticipant)");
    out.println("                  table   rows of the H2 database in out/table (JdbcParticipant)");
    out.println("                  topic   records of the Kafka topic " + TopicSink.TOPIC + " (KafkaParticipant)");
    out.println("checkpoints:    every " + every + " records, " + CrashPlan.checkpoints(n, every)
        + " in a complete run (the last one by finish()); the input position is stored in each");
    if (plan.crashes().isEmpty()) {
      out.println("crash plan:     none (" + plan.origin() + ")");
    }
    for (int i = 0; i < plan.crashes().size(); i++) {
      CrashPlan.Crash c = plan.crashes().get(i);
      out.println((i == 0 ? "crash plan:     " : "                ") + "jvm " + (i + 1) + " is killed at "
          + c.spec() + " (" + plan.origin() + "): " + c.meaning(i == 0));
    }
    out.flush();

    try (Stopper stopper = new Stopper()) {
      long brokerStart = System.nanoTime();
      KafkaTestBroker broker = stopper.broker(() -> KafkaTestBroker.start(work.resolve("kafka"), 2, Map.of()));
      broker.createTopic(TopicSink.TOPIC, 1);
      out.printf("kafka:          a broker in this JVM (KRaft, one node) at %s, topic %s, started in %.1f s;%n"
          + "                the jobs run in other JVMs, so killing them leaves the broker up%n",
          broker.bootstrapServers(), TopicSink.TOPIC, seconds(Duration.ofNanos(System.nanoTime() - brokerStart)));
      out.flush();
      long segmentBytes = plan.compacts() ? CrashPlan.SMALL_SEGMENT_BYTES : FileStateLog.DEFAULT_SEGMENT_BYTES;
      return run(plan, work, broker.bootstrapServers(), segmentBytes, stopper, start);
    }
  }

  private Result run(CrashPlan plan, Path work, String bootstrapServers, long segmentBytes, Stopper stopper,
      long start)
      throws IOException, InterruptedException {
    long n = options.records();
    List<ChildRun> children = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Set<Path> leftInProgress = new LinkedHashSet<>();
    int steps = plan.crashes().size() + 2;
    boolean killedLast = false;
    for (int i = 0; i < plan.crashes().size(); i++) {
      CrashPlan.Crash crash = plan.crashes().get(i);
      int number = i + 1;
      out.println();
      out.println("[" + number + "/" + steps + "] jvm " + number + ": "
          + (i == 0 ? "the job, from a fresh state log" : "the same job, recovering")
          + ", to be killed at " + crash.spec());
      ChildRun child = runChild(number, crash.spec(), work, bootstrapServers, segmentBytes, stopper);
      stopper.ensureRunning();
      children.add(child);
      killedLast = child.killed();
      if (child.killed()) {
        String where = i == 0 || crash.point() == ProtocolPoint.DURING_RECOVERY_COMMIT ? " " + where(crash) : "";
        out.printf("jvm %d killed at %s (exit %d: SIGKILL)%s, %.1f s%n", number, child.killedAt(),
            child.exitCode(), where, seconds(child.took()));
        if (crash.inLogWrite()) {
          powerLoss(crash.point(), work);
        }
        afterCrash(work, bootstrapServers, leftInProgress);
      } else if (child.succeeded()) {
        out.println("jvm " + number + " ran to the end without reaching " + crash.spec()
            + " (use a smaller hit count): no crash to recover from");
        break;
      } else {
        problems.add(failure(child));
        break;
      }
    }

    if (problems.isEmpty() && (killedLast || plan.crashes().isEmpty())) {
      int number = children.size() + 1;
      out.println();
      out.println("[" + number + "/" + steps + "] jvm " + number + ": "
          + (children.isEmpty() ? "the job, from a fresh state log, no crash"
              : "the same job, no crash: recovers, then runs to the end"));
      ChildRun child = runChild(number, null, work, bootstrapServers, segmentBytes, stopper);
      stopper.ensureRunning();
      children.add(child);
      if (child.succeeded()) {
        out.printf("jvm %d exited 0, %.1f s%n", number, seconds(child.took()));
      } else {
        problems.add(failure(child));
      }
      if (!leftInProgress.isEmpty()) {
        reportInProgressFate(work, leftInProgress);
      }
    }

    out.println();
    out.println("[" + steps + "/" + steps + "] verification: each sink read the way its readers read it");
    long verifyStart = System.nanoTime();
    List<SinkCheck> checks = new ArrayList<>();
    checks.add(FileSinks.check(DemoJob.ORDERS, DemoJob.sinkDir(work, DemoJob.ORDERS), n, true));
    checks.add(FileSinks.check(DemoJob.LEDGER, DemoJob.sinkDir(work, DemoJob.LEDGER), n, false));
    try {
      checks.add(TableSink.check(DemoJob.sinkDir(work, DemoJob.TABLE), n));
    } catch (Exception e) {
      problems.add("table: cannot read the H2 database: " + e);
    }
    try {
      checks.add(TopicSink.check(bootstrapServers, n));
    } catch (RuntimeException e) {
      problems.add("topic: cannot read the Kafka topic: " + e);
    }
    out.println("  records in:  " + n);
    out.printf("  %-7s %-38s %8s %11s %6s  %s%n", "sink", "read as", "records", "duplicates", "lost", "left");
    for (SinkCheck c : checks) {
      out.printf("  %-7s %-38s %8d %11d %6d  %d %s%s%n", c.sink(), c.kind(), c.records(), c.duplicates(), c.lost(),
          c.left(), c.leftKind(), c.unexpected() == 0 ? "" : "; unexpected records: " + c.unexpected());
      if (!c.ok()) {
        problems.add(c.problem());
      }
    }
    for (SinkCheck c : checks) {
      if (c.sample() != null) {
        out.printf("  e.g. %-7s %s%n", c.sink() + ":", c.sample());
      }
    }

    long finishedCheckpoint = -1;
    long finishedRecords = -1;
    ChildRun last = children.isEmpty() ? null : children.get(children.size() - 1);
    if (last != null && last.succeeded()) {
      for (String line : last.output()) {
        Matcher m = FINISHED.matcher(line);
        if (m.matches()) {
          finishedCheckpoint = Long.parseLong(m.group(1));
          finishedRecords = Long.parseLong(m.group(2));
        }
      }
    }
    long expectedCheckpoints = CrashPlan.checkpoints(n, options.checkpointEvery());
    if (finishedCheckpoint >= 0) {
      out.println("  the job:     jvm " + last.number() + " finished the input at record " + finishedRecords
          + " with checkpoint " + finishedCheckpoint + " (a run without crashes takes " + expectedCheckpoints + ")");
    }
    if (problems.isEmpty() && (finishedRecords != n || finishedCheckpoint != expectedCheckpoints)) {
      problems.add("the last JVM did not report finishing all " + n + " records with checkpoint " + expectedCheckpoints);
    }
    StateLogSnapshot.Coordinator logged = null;
    try {
      logged = FileStateLog.inspect(DemoJob.stateDir(work)).coordinator(DemoJob.COORDINATOR).orElse(null);
    } catch (RuntimeException e) {
      problems.add("cannot read the state log: " + e);
    }
    if (logged != null) {
      long lastLogged = logged.lastState().map(StateLogSnapshot.State::checkpointId).orElse(0L);
      out.println("  state log:   last decided checkpoint " + lastLogged + ", completion mark "
          + logged.lastCompletedCheckpointId() + " (FileStateLog.inspect)");
      if (problems.isEmpty() && (lastLogged != expectedCheckpoints || logged.lastCompletedCheckpointId() != lastLogged)) {
        problems.add("the state log's last checkpoint is " + lastLogged + " with completion mark "
            + logged.lastCompletedCheckpointId() + ", not " + expectedCheckpoints + " committed");
      }
    }
    List<String> resumed = children.stream().filter(c -> c.restoredPosition() >= 0)
        .map(c -> "jvm " + c.number() + " at record " + c.restoredPosition()).toList();
    if (!resumed.isEmpty()) {
      out.println("  resumed:     " + String.join(", ", resumed)
          + " (the input position of the last decided checkpoint)");
    }
    out.printf("  time taken:  %.1f s (%s, verification %.1f s)%n",
        seconds(Duration.ofNanos(System.nanoTime() - start)),
        children.stream().map(c -> String.format("jvm %d %.1f s", c.number(), seconds(c.took())))
            .collect(Collectors.joining(", ")),
        seconds(Duration.ofNanos(System.nanoTime() - verifyStart)));
    if (children.stream().noneMatch(ChildRun::killed) && !plan.crashes().isEmpty()) {
      out.println("  note: no JVM was killed, so this run did not exercise recovery");
    }
    boolean ok = problems.isEmpty();
    out.println(ok ? "exactly-once: OK" : "exactly-once: FAILED");
    for (String p : problems) {
      out.println("  " + p);
    }
    out.flush();
    return new Result(ok, work, List.copyOf(children), List.copyOf(checks), finishedCheckpoint, finishedRecords,
        List.copyOf(problems));
  }

  private String failure(ChildRun child) {
    String what = child.timedOut() ? "timed out after " + options.childTimeout().toSeconds() + " s and was killed"
        : "failed (exit " + child.exitCode() + ")";
    out.println("jvm " + child.number() + " " + what);
    return "jvm " + child.number() + " " + what;
  }

  private String where(CrashPlan.Crash crash) {
    long n = options.records();
    int every = options.checkpointEvery();
    long cp = crash.checkpoint();
    long at = Math.min(cp * every, n);
    return switch (crash.point()) {
      case BEFORE_PRE_COMMIT, BETWEEN_PRE_COMMITS, AFTER_PRE_COMMITS, AFTER_LOG_APPEND ->
          "in checkpoint " + cp + ", after " + at + " records";
      case BETWEEN_COMMITS, AFTER_COMMITS -> "while committing checkpoint " + cp + " (decided after " + at
          + " records; the job's other threads went on until the kill)";
      case DURING_LOG_APPEND -> cp == 0 ? "while writing the start-up record"
          : "while writing checkpoint " + cp + "'s decision, after " + at + " records";
      case DURING_RECOVERY_COMMIT -> "during recovery";
      case DURING_COMPACTION -> "during a compaction of the state log";
    };
  }

  // ------------------------------------------------------------------ what a killed JVM left

  /**
   * A killed process's writes survive in the page cache: a record it was writing is whole on disk.
   * A power loss at the same moment may keep only part of it, and that is what the log must
   * survive; so after a kill inside a log write, the demo cuts the log as a power loss could.
   */
  private void powerLoss(ProtocolPoint point, Path work) throws IOException {
    Path state = DemoJob.stateDir(work);
    if (point == ProtocolPoint.DURING_LOG_APPEND) {
      boolean cut = PowerLoss.tearLastAppend(state);
      out.println("parent: " + (cut ? "cut the state log in the middle of its newest record (PowerLoss.tearLastAppend), "
          + "as a power loss during that write could leave it" : "no state record to cut"));
    } else {
      PowerLoss.tearLastSegment(state);
      out.println("parent: cut the state log's newest segment in the middle (PowerLoss.tearLastSegment), as a "
          + "power loss during the compaction could leave it");
    }
  }

  private void afterCrash(Path work, String bootstrapServers, Set<Path> leftInProgress) {
    out.println("what the killed JVM left behind:");
    out.printf("  %-7s %s%n", "log:", describeLog(work));
    for (String sink : List.of(DemoJob.ORDERS, DemoJob.LEDGER)) {
      FileSinks.Listing listing = FileSinks.list(DemoJob.sinkDir(work, sink));
      out.printf("  %-7s %s%n", sink + ":", listing.describe());
      leftInProgress.addAll(listing.inProgress());
    }
    try {
      out.printf("  %-7s %s%n", DemoJob.TABLE + ":", TableSink.state(DemoJob.sinkDir(work, DemoJob.TABLE)).describe());
    } catch (Exception e) {
      out.printf("  %-7s cannot read the H2 database: %s%n", DemoJob.TABLE + ":", e);
    }
    try {
      out.printf("  %-7s %s%n", DemoJob.TOPIC + ":", TopicSink.state(bootstrapServers).describe());
    } catch (RuntimeException e) {
      out.printf("  %-7s cannot read the Kafka topic: %s%n", DemoJob.TOPIC + ":", e);
    }
    out.flush();
  }

  /** The state log as {@link FileStateLog#inspect} reads it, without taking it over. */
  private static String describeLog(Path work) {
    StateLogSnapshot log;
    try {
      log = FileStateLog.inspect(DemoJob.stateDir(work));
    } catch (RuntimeException e) {
      return "cannot read the state log: " + e;
    }
    String torn = log.tailInProgress().isPresent() ? "; a torn record at the end, which the next owner cuts off" : "";
    StateLogSnapshot.Coordinator c = log.coordinator(DemoJob.COORDINATOR).orElse(null);
    long decided = c == null ? 0 : c.lastState().map(StateLogSnapshot.State::checkpointId).orElse(0L);
    if (decided == 0) {
      return "no checkpoint decided" + torn;
    }
    return "last decided checkpoint " + decided + ", completion mark " + c.lastCompletedCheckpointId()
        + " (committed everywhere up to there)" + torn;
  }

  private void reportInProgressFate(Path work, Set<Path> leftInProgress) {
    List<String> committed = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<String> remaining = new ArrayList<>();
    for (Path p : leftInProgress) {
      String name = work.relativize(p).toString();
      if (Files.exists(FileSinks.committedName(p))) {
        committed.add(name);
      } else if (Files.exists(p)) {
        remaining.add(name);
      } else {
        deleted.add(name);
      }
    }
    out.println("in-progress files left by the kill: " + leftInProgress.size() + "; committed by recovery "
        + "(renamed to part-*): " + committed.size() + ", deleted (never decided): " + deleted.size()
        + (remaining.isEmpty() ? "" : ", still there: " + remaining.size()));
    for (String c : committed) {
      out.println("  renamed: " + c + " -> " + FileSinks.committedName(Path.of(c)).getFileName());
    }
    for (String d : deleted) {
      out.println("  deleted: " + d);
    }
    for (String r : remaining) {
      out.println("  still there: " + r);
    }
  }

  // ------------------------------------------------------------------ child JVMs

  private ChildRun runChild(int number, String crashAt, Path work, String bootstrapServers, long segmentBytes,
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

  // ------------------------------------------------------------------ nothing left behind

  /**
   * Stops what a run started, on every way out: the child JVM that is running (killed) and the
   * broker (stopped, its data deleted), at {@link #close()} or, on Ctrl-C or any other end of this
   * JVM, from a shutdown hook.
   */
  private static final class Stopper implements AutoCloseable {
    private final Thread hook = new Thread(this::stop, "twophase-demo-stop");
    private Process child;
    private KafkaTestBroker broker;
    private boolean stopped;

    interface Start<T> {
      T start() throws IOException;
    }

    Stopper() {
      Runtime.getRuntime().addShutdownHook(hook);
    }

    synchronized KafkaTestBroker broker(Start<KafkaTestBroker> start) throws IOException {
      ensureRunning();
      broker = start.start();
      return broker;
    }

    synchronized Process child(Start<Process> start) throws IOException {
      ensureRunning();
      child = start.start();
      return child;
    }

    synchronized void childEnded() {
      child = null;
    }

    synchronized void ensureRunning() {
      if (stopped) {
        throw new StoppedException();
      }
    }

    private synchronized void stop() {
      stopped = true;
      if (child != null) {
        child.destroyForcibly();
        try {
          child.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        child = null;
      }
      if (broker != null) {
        broker.close();
        broker = null;
      }
    }

    @Override
    public void close() {
      stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway
      }
    }
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
