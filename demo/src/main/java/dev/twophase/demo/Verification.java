package dev.twophase.demo;

import static dev.twophase.demo.Demo.seconds;

import dev.twophase.FileStateLog;
import dev.twophase.StateLogSnapshot;
import dev.twophase.demo.Demo.ChildRun;
import dev.twophase.demo.Demo.Result;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The demo's last step, the verdict: each sink read the way its readers read it (every input
 * record exactly once), the job's own report of its end, the state log's last checkpoint, and the
 * time each step took.
 */
final class Verification {

  private static final Pattern FINISHED =
      Pattern.compile("finished: checkpoint ([0-9]+) committed, ([0-9]+) records in total.*");

  private final Demo.Options options;
  private final PrintStream out;

  Verification(Demo.Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /**
   * Checks the sinks and the state log after the child JVMs {@code children} ran, adds what it
   * finds wrong to {@code problems} (which holds the runs' own problems) and prints the verdict.
   *
   * @param steps the number of the step, the last one of the run
   * @param start when the run started ({@link System#nanoTime()})
   */
  Result verify(int steps, CrashPlan plan, Path work, String bootstrapServers, List<ChildRun> children,
      List<String> problems, long start) {
    long n = options.records();
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
}
