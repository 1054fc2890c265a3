package dev.twophase.testkit.crash;

import dev.twophase.annotation.Experimental;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A scenario of a {@link CrashTest} that passed: what each child JVM did.
 *
 * @param scenario the scenario run
 * @param directory where it ran (the state log, the work directories, every child's files)
 * @param children the child JVMs, in order
 */
@Experimental
public record CrashRun(CrashScenario scenario, Path directory, List<Child> children) {

  /** Copies the children. */
  public CrashRun {
    children = List.copyOf(children);
  }

  /** How a child JVM ended. */
  public enum Ending {
    /** Halted at its planned crash. */
    CRASHED,
    /** Ran to the end: its records written, its last checkpoint committed. */
    FINISHED,
    /** Threw, or exited with another status. */
    FAILED,
    /** Did not end within the child timeout and was killed. */
    HUNG
  }

  /**
   * One child JVM.
   *
   * @param number 1, 2, ... in the scenario
   * @param crash where it was to halt; empty for the last, clean child
   * @param ending how it ended
   * @param restoredPosition the record its application resumed at after recovery, if it got that far
   * @param hits how often each point was reached, if it ran to the end (counted from its start)
   */
  public record Child(int number, Optional<Crash> crash, Ending ending, OptionalLong restoredPosition, Map<String, Long> hits) {

    /** Copies the hits. */
    public Child {
      hits = Map.copyOf(hits);
    }
  }
}
