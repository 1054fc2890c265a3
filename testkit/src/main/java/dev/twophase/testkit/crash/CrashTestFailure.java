package dev.twophase.testkit.crash;

import dev.twophase.annotation.Experimental;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A {@link CrashTest} scenario found something wrong. The message lists the findings, then each
 * child JVM: how it ended, the end of its output, and its threads if it hung. The scenario's
 * directory (state log, your work directory, the children's output and reports) is kept.
 */
@Experimental
public final class CrashTestFailure extends AssertionError {

  private static final long serialVersionUID = 1L;

  private final transient List<CrashFinding> findings;
  private final transient Path scenarioDirectory;

  CrashTestFailure(String message, List<CrashFinding> findings, Path scenarioDirectory) {
    super(message);
    this.findings = List.copyOf(findings);
    this.scenarioDirectory = scenarioDirectory;
  }

  /** Everything found, in the order found. */
  public List<CrashFinding> findings() {
    return findings;
  }

  /** The kinds of the findings. */
  public Set<CrashFinding.Kind> kinds() {
    Set<CrashFinding.Kind> kinds = new TreeSet<>();
    findings.forEach(f -> kinds.add(f.kind()));
    return kinds;
  }

  /** Where the scenario ran: the state log, the work directories and every child's files. */
  public Path scenarioDirectory() {
    return scenarioDirectory;
  }
}
