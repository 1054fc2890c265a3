package dev.twophase.testkit.crash;

import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Experimental;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What one run of a {@link CrashTest} does: a child JVM per crash, in order, each halting at its
 * {@link Crash} and each recovering what the one before left, then a last child that recovers and
 * runs to the end without a crash. Made to be the parameter of a JUnit
 * {@code @ParameterizedTest}:
 *
 * <pre>{@code
 * static List<CrashScenario> scenarios() {
 *   List<CrashScenario> all = new ArrayList<>(CrashScenario.everyProtocolPoint());
 *   all.addAll(CrashScenario.atEach(List.of("mydb.commit.afterPublish"), 1, 2));
 *   return all;
 * }
 *
 * @ParameterizedTest(name = "{0}")
 * @MethodSource("scenarios")
 * void crashAndRecover(CrashScenario scenario) {
 *   crashTest.run(scenario);
 * }
 * }</pre>
 *
 * @param name what the scenario is, for test names and messages
 * @param crashes the crashes, one child JVM each, in order; may be empty (a clean run)
 */
@Experimental
public record CrashScenario(String name, List<Crash> crashes) {

  /** Copies the crashes. */
  public CrashScenario {
    Objects.requireNonNull(name, "name");
    crashes = List.copyOf(crashes);
  }

  /** A scenario of these crashes, named after them ({@code "AFTER_LOG_APPEND:2 then ..."}). */
  public static CrashScenario of(Crash... crashes) {
    List<Crash> list = List.of(crashes);
    return new CrashScenario(list.isEmpty() ? "no crash" : String.join(" then ", list.stream().map(Crash::toString).toList()), list);
  }

  /**
   * One scenario per coordinator protocol point the harness can reach, at the second checkpoint
   * of the first child (hit 2), so that one checkpoint is already committed when it crashes:
   * {@code BEFORE_PRE_COMMIT}, {@code BETWEEN_PRE_COMMITS}, {@code AFTER_PRE_COMMITS},
   * {@code AFTER_LOG_APPEND}, {@code BETWEEN_COMMITS}, {@code AFTER_COMMITS}; and
   * {@code DURING_RECOVERY_COMMIT} at hits 1 and 2 (after your participant's and after the
   * witness's recovery commit), in a child that recovers a checkpoint decided but not committed by
   * a first crash at {@code AFTER_LOG_APPEND:2}; and the state log's own points:
   * {@code DURING_LOG_APPEND:2} (the sync of the first checkpoint's decision; the start-up
   * record's is hit 1), after which the harness tears the record as a power loss could, and
   * {@code DURING_COMPACTION:1}, after which it cuts the new segment. Needs a test of at least two
   * checkpoints (records >= 2 x checkpointEvery).
   */
  public static List<CrashScenario> everyProtocolPoint() {
    List<CrashScenario> all = new ArrayList<>();
    for (ProtocolPoint p : List.of(ProtocolPoint.BEFORE_PRE_COMMIT, ProtocolPoint.BETWEEN_PRE_COMMITS,
        ProtocolPoint.AFTER_PRE_COMMITS, ProtocolPoint.AFTER_LOG_APPEND, ProtocolPoint.BETWEEN_COMMITS,
        ProtocolPoint.AFTER_COMMITS)) {
      all.add(of(Crash.at(p, 2)));
    }
    for (int hit = 1; hit <= 2; hit++) {
      all.add(of(Crash.at(ProtocolPoint.AFTER_LOG_APPEND, 2), Crash.at(ProtocolPoint.DURING_RECOVERY_COMMIT, hit)));
    }
    // Inside the log: the sync of checkpoint 1's decision (the start-up record's is hit 1), torn by
    // a power loss; and the first compaction (the harness's log compacts every few checkpoints).
    all.add(of(Crash.at(ProtocolPoint.DURING_LOG_APPEND, 2)));
    all.add(of(Crash.at(ProtocolPoint.DURING_COMPACTION, 1)));
    return all;
  }

  /** One single-crash scenario per point and hit: your participant's own points, say. */
  public static List<CrashScenario> atEach(Collection<String> points, long... hits) {
    List<CrashScenario> all = new ArrayList<>();
    for (String point : points) {
      for (long hit : hits) {
        all.add(of(Crash.at(point, hit)));
      }
    }
    return all;
  }

  @Override
  public String toString() {
    return name;
  }
}
