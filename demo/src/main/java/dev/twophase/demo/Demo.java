package dev.twophase.demo;

import dev.twophase.FileStateLog;
import dev.twophase.ProtocolPoint;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo's parent process: prepares a work directory, starts a Kafka broker in this JVM, runs
 * the {@link DemoJob} in a child JVM that it kills with {@code SIGKILL} when the job announces the
 * planned protocol point, then in a second child JVM that recovers and runs to the end, and finally
 * checks all four sinks on its own, the way their readers read them: every input record exactly
 * once.
 *
 * <p>Nothing outlives a run: the broker is stopped and a running child killed on every way out,
 * including a failure and Ctrl-C (a shutdown hook, {@link Stopper}).
 *
 * <p>This class runs the steps and prints them; the work directory is {@link WorkDirectory}'s, the
 * child JVMs are {@link ChildJvms}', what a killed JVM left is reported by {@link KillAftermath}
 * and the verdict by {@link Verification}.
 */
public final class Demo {

  /** Exit status of a JVM killed by {@code SIGKILL} (128 + 9). */
  public static final int SIGKILL_EXIT = 137;

  /** The demo's settings. */
  public record Options(
      Path dir, long records, int checkpointEvery, int partRecords, String crashAt, long seed,
      Duration childTimeout, int workers) {

    public static Options defaults() {
      return new Options(null, 200_000, 10_000, 5_000, null, System.nanoTime() & 0xffff,
          Duration.ofMinutes(10), 0);
    }

    /** Group mode with {@code w} workers ({@link GroupDemo}); 0 for the one-job demo. */
    public Options withWorkers(int w) {
      return new Options(dir, records, checkpointEvery, partRecords, crashAt, seed, childTimeout, w);
    }

    public Options withDir(Path d) {
      return new Options(d, records, checkpointEvery, partRecords, crashAt, seed, childTimeout, workers);
    }

    public Options withRecords(long n) {
      return new Options(dir, n, checkpointEvery, partRecords, crashAt, seed, childTimeout, workers);
    }

    public Options withCheckpointEvery(int k) {
      return new Options(dir, records, k, partRecords, crashAt, seed, childTimeout, workers);
    }

    public Options withPartRecords(int p) {
      return new Options(dir, records, checkpointEvery, p, crashAt, seed, childTimeout, workers);
    }

    public Options withCrashAt(String c) {
      return new Options(dir, records, checkpointEvery, partRecords, c, seed, childTimeout, workers);
    }

    public Options withSeed(long s) {
      return new Options(dir, records, checkpointEvery, partRecords, crashAt, s, childTimeout, workers);
    }

    public Options withChildTimeout(Duration t) {
      return new Options(dir, records, checkpointEvery, partRecords, crashAt, seed, t, workers);
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
      if (workers == 1 || workers < 0 || workers > 6) {
        throw new IllegalArgumentException("--workers must be in [2, 6] (the input has 6 partitions), was " + workers);
      }
      if (workers > 0 && crashAt != null) {
        throw new IllegalArgumentException("--crash-at does not go with --workers: in group mode a worker is killed "
            + "once a third of the output is committed");
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
  private final ChildJvms childJvms;
  private final KillAftermath aftermath;

  private Demo(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
    this.childJvms = new ChildJvms(options, out);
    this.aftermath = new KillAftermath(out);
  }

  /** Runs the demo, printing to {@code out}. */
  public static Result run(Options options, PrintStream out) throws IOException, InterruptedException {
    options.validate();
    return options.workers() > 0 ? new GroupDemo(options, out).run() : new Demo(options, out).run();
  }

  private Result run() throws IOException, InterruptedException {
    long start = System.nanoTime();
    long n = options.records();
    int every = options.checkpointEvery();
    CrashPlan plan = CrashPlan.parse(options.crashAt() == null ? "AFTER_LOG_APPEND" : options.crashAt(),
        n, every, options.seed());
    Path work = WorkDirectory.prepare(options.dir() != null ? options.dir() : WorkDirectory.defaultDir());

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
      ChildRun child = childJvms.run(number, crash.spec(), work, bootstrapServers, segmentBytes, stopper);
      stopper.ensureRunning();
      children.add(child);
      killedLast = child.killed();
      if (child.killed()) {
        String where = i == 0 || crash.point() == ProtocolPoint.DURING_RECOVERY_COMMIT ? " " + where(crash) : "";
        out.printf("jvm %d killed at %s (exit %d: SIGKILL)%s, %.1f s%n", number, child.killedAt(),
            child.exitCode(), where, seconds(child.took()));
        if (crash.inLogWrite()) {
          aftermath.powerLoss(crash.point(), work);
        }
        aftermath.afterCrash(work, bootstrapServers, leftInProgress);
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
      ChildRun child = childJvms.run(number, null, work, bootstrapServers, segmentBytes, stopper);
      stopper.ensureRunning();
      children.add(child);
      if (child.succeeded()) {
        out.printf("jvm %d exited 0, %.1f s%n", number, seconds(child.took()));
      } else {
        problems.add(failure(child));
      }
      if (!leftInProgress.isEmpty()) {
        aftermath.reportInProgressFate(work, leftInProgress);
      }
    }

    return new Verification(options, out).verify(steps, plan, work, bootstrapServers, children, problems,
        start);
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

  /** {@code d} in seconds, as the demo prints durations. */
  static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
