package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The demo end to end, as {@code java -jar twophase-demo.jar} runs it: a Kafka broker in this JVM,
 * real child JVMs, the first one killed with SIGKILL at the protocol point it announces, the next
 * one recovering, then the independent check of all four sinks.
 */
class DemoIT {

  private static final long RECORDS = 20_000;
  private static final int EVERY = 1_000;
  private static final long GROUP_RECORDS = 12_000;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {
      "AFTER_LOG_APPEND",                         // decided, nothing committed: recoverAndCommit
      "BEFORE_PRE_COMMIT",                        // undecided, written but not prepared: aborted
      "BETWEEN_COMMITS",                          // visible in the file sinks only until recovery
      "DURING_LOG_APPEND",                        // the decision torn as by a power loss: undecided
      "AFTER_LOG_APPEND,DURING_RECOVERY_COMMIT:1" // a kill during recovery, recovered again
  })
  void killRecoverAndVerify(String crashAt) throws Exception {
    Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);
    CrashPlan plan = CrashPlan.parse(crashAt, RECORDS, EVERY, 0);
    Demo.Options options = Demo.Options.defaults()
        .withDir(dir.resolve("run"))
        .withRecords(RECORDS)
        .withCheckpointEvery(EVERY)
        .withPartRecords(400)
        .withCrashAt(crashAt)
        .withChildTimeout(Duration.ofMinutes(2));

    Demo.Result result = Demo.run(options, out);
    String text = captured.toString(StandardCharsets.UTF_8);

    List<Demo.ChildRun> children = result.children();
    int kills = plan.crashes().size();
    assertEquals(kills + 1, children.size(), text);
    for (int i = 0; i < kills; i++) {
      Demo.ChildRun child = children.get(i);
      assertEquals(plan.crashes().get(i).spec(), child.killedAt(), "jvm " + (i + 1) + " must announce its point\n" + text);
      assertEquals(Demo.SIGKILL_EXIT, child.exitCode(), "jvm " + (i + 1) + " must die of SIGKILL\n" + text);
    }
    Demo.ChildRun last = children.get(kills);
    assertTrue(last.succeeded(), text);
    assertTrue(last.output().stream().anyMatch(l -> l.startsWith("recovered: last decided checkpoint")), text);
    assertTrue(last.restoredPosition() > 0 && last.restoredPosition() % EVERY == 0, text);

    assertTrue(result.ok(), text);
    assertTrue(text.contains("exactly-once: OK"), text);
    assertEquals(List.of(DemoJob.ORDERS, DemoJob.LEDGER, DemoJob.TABLE, DemoJob.TOPIC),
        result.checks().stream().map(SinkCheck::sink).toList(), text);
    for (SinkCheck check : result.checks()) {
      assertEquals(RECORDS, check.records(), check.sink() + "\n" + text);
      assertEquals(RECORDS, check.distinct(), check.sink() + "\n" + text);
      assertEquals(0, check.duplicates(), check.sink() + "\n" + text);
      assertEquals(0, check.lost(), check.sink() + "\n" + text);
      assertEquals(0, check.unexpected(), check.sink() + "\n" + text);
      assertEquals(0, check.left(), check.sink() + " " + check.leftKind() + "\n" + text);
    }
    assertEquals(CrashPlan.checkpoints(RECORDS, EVERY), result.finishedCheckpoint(), text);
    assertEquals(RECORDS, result.finishedRecords(), text);
    // The broker stopped and deleted its data; the children are gone; so are the threads of the
    // broker and of the clients the checks used.
    assertTrue(Files.notExists(result.workDir().resolve("kafka")), text);
    for (Demo.ChildRun child : children) {
      assertTrue(ProcessHandle.allProcesses().noneMatch(p -> p.pid() == child.pid() && p.isAlive()), text);
    }
    assertEquals(List.of(), threadsLeft(threadsBefore));
  }

  /**
   * The group mode, as {@code java -jar twophase-demo.jar --workers 3} runs it: three worker JVMs of
   * one consumer group, one killed with SIGKILL once a third of the output is committed, the others
   * taking its tasks over; then the independent check of the files and the topic.
   */
  @Test
  void groupModeKillsAWorkerAndEveryRecordArrivesOnce() throws Exception {
    Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);
    Demo.Options options = Demo.Options.defaults()
        .withDir(dir.resolve("group"))
        .withRecords(GROUP_RECORDS)
        .withPartRecords(400)
        .withWorkers(3)
        .withChildTimeout(Duration.ofMinutes(2));

    Demo.Result result = Demo.run(options, out);
    String text = captured.toString(StandardCharsets.UTF_8);

    assertTrue(text.contains("is killed with SIGKILL; the others take its tasks over"), text);
    assertTrue(result.ok(), text);
    assertTrue(text.contains("exactly-once: OK"), text);
    assertEquals(List.of(DemoJob.ORDERS, DemoJob.TOPIC), result.checks().stream().map(SinkCheck::sink).toList(), text);
    for (SinkCheck check : result.checks()) {
      assertEquals(GROUP_RECORDS, check.records(), check.sink() + "\n" + text);
      assertEquals(GROUP_RECORDS, check.distinct(), check.sink() + "\n" + text);
      assertEquals(0, check.left(), check.sink() + " " + check.leftKind() + "\n" + text);
    }
    assertTrue(Files.notExists(result.workDir().resolve("kafka")), text);
    assertEquals(List.of(), threadsLeft(threadsBefore));
  }

  /**
   * Threads started since {@code before} that are still alive once each had a while to end, but
   * for the JVM's own pools and Kafka's metrics timer, which its metrics library keeps once per JVM.
   */
  private static List<String> threadsLeft(Set<Thread> before) throws InterruptedException {
    List<String> left = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName();
      if (before.contains(t) || name.startsWith("process reaper") || name.startsWith("ForkJoinPool.commonPool")
          || name.startsWith("metrics-meter-tick-thread") || name.equals("Attach Listener")) {
        continue;
      }
      t.join(30_000);
      if (t.isAlive()) {
        left.add(name + " (" + t.getState() + ")");
      }
    }
    return left;
  }

  /** Writes to two streams. */
  private static final class Tee extends OutputStream {
    private final ByteArrayOutputStream a;
    private final PrintStream b;

    Tee(ByteArrayOutputStream a, PrintStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public void flush() {
      b.flush();
    }
  }
}
