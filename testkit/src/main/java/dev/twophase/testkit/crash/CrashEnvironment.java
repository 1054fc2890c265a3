package dev.twophase.testkit.crash;

import dev.twophase.FaultInjector;
import dev.twophase.annotation.Experimental;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link CrashSubject} gets in a child JVM of a {@link CrashTest}: where to keep its data,
 * the names the coordinator uses, and the fault injector to hand to the participant.
 */
@Experimental
public final class CrashEnvironment {

  /** The name of your participant in the child's coordinator. */
  public static final String PARTICIPANT = "subject";
  /** The name of the harness's own participant, registered after yours. */
  public static final String WITNESS = "witness";

  private final Path workDirectory;
  private final String scenarioId;
  private final int child;
  private final FaultInjector faults;

  CrashEnvironment(Path workDirectory, String scenarioId, int child, FaultInjector faults) {
    this.workDirectory = Objects.requireNonNull(workDirectory, "workDirectory");
    this.scenarioId = Objects.requireNonNull(scenarioId, "scenarioId");
    this.child = child;
    this.faults = Objects.requireNonNull(faults, "faults");
  }

  /**
   * A directory for your resource's data in this scenario: empty when the first child starts, and
   * the same in every child of the scenario (a file-based resource lives here; a database can keep
   * its files here, or use {@link #scenarioId()} to name a schema).
   */
  public Path workDirectory() {
    return workDirectory;
  }

  /**
   * Unique per scenario, also across test runs: letters, digits and '_' only, at most 40
   * characters. Name per-scenario resources (a table, a topic) after it if they are not under
   * {@link #workDirectory()}.
   */
  public String scenarioId() {
    return scenarioId;
  }

  /**
   * The id of the coordinator in every child of this scenario; your participant's transaction
   * names start with it ({@link dev.twophase.ParticipantContext#transactionNamePrefix()}).
   */
  public String coordinatorId() {
    return "crash_" + scenarioId;
  }

  /** Your participant's name in the coordinator: {@value #PARTICIPANT}. */
  public String participantName() {
    return PARTICIPANT;
  }

  /** The number of this child JVM in its scenario: 1, 2, ... */
  public int child() {
    return child;
  }

  /**
   * The fault injector to give your participant: it counts every point reached and halts the
   * JVM at the scenario's crash. Call {@code reached("<point>")} at the points you name.
   */
  public FaultInjector faults() {
    return faults;
  }

  /**
   * A system property of the child, such as one set with
   * {@link CrashTest.Builder#childProperty(String, String)}.
   */
  public Optional<String> property(String name) {
    return Optional.ofNullable(System.getProperty(name));
  }

  @Override
  public String toString() {
    return "CrashEnvironment{scenario " + scenarioId + ", child #" + child + ", " + workDirectory + "}";
  }
}
