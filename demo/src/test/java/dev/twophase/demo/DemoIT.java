package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.CrashInjector;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The demo end to end, as {@code java -jar twophase-demo.jar} runs it: real child JVMs, the first
 * one halted at a crash point, the next one recovering, then the independent check of both sinks.
 */
class DemoIT {

  private static final long RECORDS = 20_000;
  private static final int EVERY = 1_000;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {
      "AFTER_LOG_APPEND",                         // decided, nothing committed: recoverAndCommit
      "BEFORE_PRE_COMMIT",                        // undecided, half-written files: recoverAndAbort
      "BETWEEN_COMMITS",                          // visible in one sink only until recovery
      "AFTER_LOG_APPEND,DURING_RECOVERY_COMMIT:1" // a crash during recovery, recovered again
  })
  void crashRecoverAndVerify(String crashAt) throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new Tee(captured, System.out), true, StandardCharsets.UTF_8);
    Demo.Options options = Demo.Options.defaults()
        .withDir(dir.resolve("run"))
        .withRecords(RECORDS)
        .withCheckpointEvery(EVERY)
        .withPartRecords(400)
        .withCrashAt(crashAt)
        .withChildTimeout(Duration.ofMinutes(2));

    Demo.Result result = Demo.run(options, out);
    String text = captured.toString(StandardCharsets.UTF_8);

    int crashes = crashAt.split(",").length;
    List<Demo.ChildRun> children = result.children();
    assertEquals(crashes + 1, children.size(), text);
    for (int i = 0; i < crashes; i++) {
      assertEquals(CrashInjector.EXIT_CODE, children.get(i).exitCode(), "jvm " + (i + 1) + " must crash\n" + text);
      assertTrue(children.get(i).output().stream().anyMatch(l -> l.contains("crash injected at")), text);
    }
    Demo.ChildRun last = children.get(crashes);
    assertTrue(last.succeeded(), text);
    assertTrue(last.output().stream().anyMatch(l -> l.startsWith("recovered: last decided checkpoint")), text);
    assertTrue(result.ok(), text);
    assertTrue(text.contains("exactly-once: OK"), text);
    for (Sinks.Check check : result.checks()) {
      assertEquals(RECORDS, check.records(), text);
      assertEquals(0, check.duplicates(), text);
      assertEquals(0, check.lost(), text);
    }
    assertEquals(CrashPlan.checkpoints(RECORDS, EVERY), result.decidedCheckpoints(), text);
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
