package dev.twophase.testkit.crash;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * What one child JVM of a scenario must do, written by the test JVM into the scenario directory
 * and read by {@link CrashChild}: the subject class, the input, the crash (if any), and where
 * everything lives.
 */
record ChildPlan(
    String subjectClass,
    long records,
    int checkpointEvery,
    int maxPendingCheckpoints,
    String scenarioId,
    int child,
    Crash crash,
    Path scenarioDirectory) {

  Path stateDirectory() {
    return scenarioDirectory.resolve("state");
  }

  Path subjectDirectory() {
    return scenarioDirectory.resolve(CrashEnvironment.PARTICIPANT);
  }

  Path witnessDirectory() {
    return scenarioDirectory.resolve(CrashEnvironment.WITNESS);
  }

  /** A file of this child in the scenario directory: {@code child-<n>.<suffix>}. */
  Path file(String suffix) {
    return scenarioDirectory.resolve("child-" + child + "." + suffix);
  }

  void write(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("subject", subjectClass);
    p.setProperty("records", Long.toString(records));
    p.setProperty("checkpointEvery", Integer.toString(checkpointEvery));
    p.setProperty("maxPendingCheckpoints", Integer.toString(maxPendingCheckpoints));
    p.setProperty("scenarioId", scenarioId);
    p.setProperty("child", Integer.toString(child));
    if (crash != null) {
      p.setProperty("crash", crash.toString());
    }
    p.setProperty("scenarioDirectory", scenarioDirectory.toString());
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(out, "a child JVM of a crash test scenario");
    }
  }

  static ChildPlan read(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    }
    String crash = p.getProperty("crash");
    return new ChildPlan(p.getProperty("subject"), Long.parseLong(p.getProperty("records")),
        Integer.parseInt(p.getProperty("checkpointEvery")), Integer.parseInt(p.getProperty("maxPendingCheckpoints")),
        p.getProperty("scenarioId"), Integer.parseInt(p.getProperty("child")),
        crash == null ? null : Crash.parse(crash), Path.of(p.getProperty("scenarioDirectory")));
  }
}
