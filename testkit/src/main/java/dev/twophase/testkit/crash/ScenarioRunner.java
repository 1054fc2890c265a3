package dev.twophase.testkit.crash;

import dev.twophase.ProtocolPoint;
import dev.twophase.testing.CrashInjector;
import dev.twophase.testing.PowerLoss;
import dev.twophase.testkit.crash.CrashFinding.Kind;
import dev.twophase.testkit.crash.CrashRun.Ending;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Runs the child JVMs of one {@link CrashScenario} of a {@link CrashTest}, one after the other over
 * the same scenario directory, and judges each as it ends: how it ended (crashed as planned, ran
 * to the end, failed, hung), and its reports through the {@link Judge}.
 */
final class ScenarioRunner {

  private static final int TAIL = 8_000;

  private final String subjectClass;
  private final long records;
  private final int checkpointEvery;
  private final int maxPendingCheckpoints;
  private final Duration childTimeout;
  private final Map<String, String> childProperties;
  private final List<String> childJvmOptions;
  private final boolean partialCommitsAllowed;

  ScenarioRunner(String subjectClass, long records, int checkpointEvery, int maxPendingCheckpoints,
      Duration childTimeout, Map<String, String> childProperties, List<String> childJvmOptions,
      boolean partialCommitsAllowed) {
    this.subjectClass = subjectClass;
    this.records = records;
    this.checkpointEvery = checkpointEvery;
    this.maxPendingCheckpoints = maxPendingCheckpoints;
    this.childTimeout = childTimeout;
    this.childProperties = Map.copyOf(childProperties);
    this.childJvmOptions = List.copyOf(childJvmOptions);
    this.partialCommitsAllowed = partialCommitsAllowed;
  }

  /**
   * Runs {@code scenario} in {@code dir}: a child per crash, then a clean one, each judged as it
   * ends; stops after a child that failed or hung.
   *
   * @throws CrashTestFailure listing everything found wrong, with every child's output
   */
  CrashRun run(CrashScenario scenario, Path dir, String scenarioId, boolean unreachedAllowed) {
    Judge judge = new Judge(records, checkpointEvery, partialCommitsAllowed);
    List<CrashFinding> findings = new ArrayList<>();
    List<CrashRun.Child> children = new ArrayList<>();
    List<String> descriptions = new ArrayList<>();
    List<Crash> plan = new ArrayList<>(scenario.crashes());
    plan.add(null); // the clean child
    for (int i = 0; i < plan.size(); i++) {
      Crash crash = plan.get(i);
      ChildPlan childPlan = new ChildPlan(subjectClass, records, checkpointEvery, maxPendingCheckpoints,
          scenarioId, i + 1, crash, dir);
      ChildJvm.Result result = runChild(childPlan);
      CrashRun.Child child = judgeChild(childPlan, result, judge, unreachedAllowed, findings);
      children.add(child);
      if (child.ending() == Ending.CRASHED && Crash.LOG_POINTS.contains(crash.point())) {
        tearLog(childPlan, crash); // a killed process's write survives whole; a power loss may not
      }
      descriptions.add(describe(childPlan, child, result));
      if (child.ending() == Ending.FAILED || child.ending() == Ending.HUNG) {
        break; // the next child would only repeat it, or recover from a state nobody planned
      }
    }
    if (!findings.isEmpty()) {
      StringBuilder message = new StringBuilder();
      message.append("crash test of ").append(subjectClass).append(", scenario '").append(scenario.name())
          .append("' (N=").append(records).append(", k=").append(checkpointEvery).append(", in ").append(dir)
          .append("): ").append(findings.size()).append(" finding(s)\n");
      findings.forEach(f -> message.append("  ").append(f).append('\n'));
      message.append("children:\n");
      descriptions.forEach(d -> message.append(d).append('\n'));
      throw new CrashTestFailure(message.toString(), findings, dir);
    }
    return new CrashRun(scenario, dir, children);
  }

  private static void tearLog(ChildPlan plan, Crash crash) {
    try {
      if (crash.point().equals(ProtocolPoint.DURING_LOG_APPEND.name())) {
        PowerLoss.tearLastAppend(plan.stateDirectory());
      } else {
        PowerLoss.tearLastSegment(plan.stateDirectory());
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot cut the log in " + plan.stateDirectory() + " after the "
          + "crash at " + crash, e);
    }
  }

  private ChildJvm.Result runChild(ChildPlan plan) {
    try {
      Path planFile = plan.file("plan");
      plan.write(planFile);
      List<String> command = ChildJvm.command(childJvmOptions, childProperties, CrashChild.class,
          List.of(planFile.toString()));
      return ChildJvm.run(command, plan.scenarioDirectory(), "child-" + plan.child(), childTimeout);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start child #" + plan.child() + " in " + plan.scenarioDirectory(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while child #" + plan.child() + " ran (it was killed)", e);
    }
  }

  private CrashRun.Child judgeChild(
      ChildPlan plan, ChildJvm.Result result, Judge judge, boolean unreachedAllowed, List<CrashFinding> findings) {
    int n = plan.child();
    Crash crash = plan.crash();
    String out = result.out();
    Ending ending;
    if (result.timedOut()) {
      ending = Ending.HUNG;
      findings.add(new CrashFinding(Kind.CHILD_HUNG, n, "", "child #" + n + " did not end within " + childTimeout
          + " and was killed; its threads at the timeout are below (a commit waiting for something, "
          + "a lock held across calls?). Raise the timeout with CrashTest.Builder.childTimeout or -D"
          + CrashTest.CHILD_TIMEOUT_PROPERTY + " if the machine is just slow"));
    } else if (result.exitCode() == CrashInjector.EXIT_CODE && crash != null
        && out.contains(HitCounter.MARKER + crash)) {
      ending = Ending.CRASHED;
    } else if (result.exitCode() == 0 && out.lines().anyMatch(CrashChild.DONE::equals)) {
      ending = Ending.FINISHED;
    } else {
      ending = Ending.FAILED;
      String failed = out.lines().filter(l -> l.startsWith(CrashChild.FAILED)).findFirst()
          .map(l -> l.substring(CrashChild.FAILED.length())).orElse(null);
      findings.add(new CrashFinding(Kind.CHILD_FAILED, n, "", "child #" + n
          + (crash == null ? " (no crash planned)" : " (to crash at " + crash + ")") + " exited with status "
          + result.exitCode() + (failed != null ? ": " + failed
              : result.exitCode() == CrashInjector.EXIT_CODE
                  ? ", which is a halt, but not the planned one: something else halted the JVM" : "")
          + " (its stack trace is in its stderr below)"));
    }
    Report before = readReport(plan, Report.BEFORE, findings);
    Report recovered = readReport(plan, Report.RECOVERED, findings);
    Report end = readReport(plan, Report.END, findings);
    if (before != null) {
      findings.addAll(n == 1 ? judge.atStart(before) : judge.beforeRecovery(n, before));
    }
    if (recovered != null) {
      findings.addAll(judge.afterRecovery(n, recovered));
    }
    if (end != null) {
      findings.addAll(judge.atEnd(n, end));
    }
    if (ending == Ending.FINISHED && end == null) {
      findings.add(new CrashFinding(Kind.CHILD_FAILED, n, "", "child #" + n + " exited normally without its end report"));
    }
    if (ending == Ending.FINISHED && crash != null && !unreachedAllowed) {
      long reached = end == null ? 0 : end.hits().getOrDefault(crash.point(), 0L);
      findings.add(new CrashFinding(Kind.CRASH_NOT_REACHED, n, "", "child #" + n + " was to crash at " + crash
          + " but ran to the end: " + crash.point() + " was reached " + reached + " time(s) in it, so the "
          + "scenario proved nothing. Points reached in that child: " + (end == null ? "?" : end.hits())
          + ". Pick a hit within those counts (see CrashTest's javadoc for which points are reached when)"));
    }
    OptionalLong position = recovered == null ? OptionalLong.empty() : OptionalLong.of(recovered.position());
    return new CrashRun.Child(n, Optional.ofNullable(crash), ending, position, end == null ? Map.of() : end.hits());
  }

  private static Report readReport(ChildPlan plan, String phase, List<CrashFinding> findings) {
    Path file = plan.file(phase);
    if (!Files.exists(file)) {
      return null;
    }
    try {
      return Report.read(file);
    } catch (IOException | RuntimeException e) {
      findings.add(new CrashFinding(Kind.CHILD_FAILED, plan.child(), "", "cannot read the report " + file + ": " + e));
      return null;
    }
  }

  private String describe(ChildPlan plan, CrashRun.Child child, ChildJvm.Result result) {
    StringBuilder sb = new StringBuilder();
    sb.append("--- child #").append(plan.child())
        .append(plan.crash() == null ? " (no crash)" : " (crash at " + plan.crash() + ")").append(": ")
        .append(child.ending())
        .append(result.timedOut() ? " after " + childTimeout : ", exit status " + result.exitCode());
    child.restoredPosition().ifPresent(p -> sb.append(", recovered to position ").append(p));
    sb.append("\n--- stdout (").append(result.stdout()).append(")\n").append(tail(result.out()))
        .append("\n--- stderr (").append(result.stderr()).append(")\n").append(tail(result.err()));
    if (result.timedOut()) {
      sb.append("\n--- threads at the timeout (").append(result.threads()).append(")\n").append(tail(result.threadDump()));
    }
    return sb.toString();
  }

  private static String tail(String s) {
    return s.length() <= TAIL ? s : "...(" + (s.length() - TAIL) + " characters cut)...\n" + s.substring(s.length() - TAIL);
  }
}
