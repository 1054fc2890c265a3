package dev.twophase.testkit.statelog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Proves that the state log conformance suite can fail: it runs the suite's checks, by reflection
 * (as {@code ConformanceSuiteSelfTest} does for the participant suite), against logs with one
 * deliberate bug each ({@link Mutants}), and checks that the checks meant to catch the bug fail
 * with a broken rule (an assertion whose message starts with "rule:", not some other error), that
 * the correct logs pass, and that every check is failed by some bug.
 */
class StateLogSuiteSelfTest {

  private static final Set<String> FAILED_BY_SOME_MUTANT =
      Collections.synchronizedSet(new HashSet<>());

  /** A broken log, the suite that runs on it, and the checks that must notice. */
  record Mutant(String name, Supplier<StateLogConformanceSuite> suite, Set<String> mustFail) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> mutants() {
    return MUTANTS.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mutants")
  void suiteCatchesMutant(Mutant mutant) {
    Map<String, String> results = run(mutant.suite().get(), mutant.mustFail());
    Set<String> failed = new TreeSet<>();
    results.forEach((test, result) -> {
      if (result.startsWith(BROKE_A_RULE)) {
        failed.add(test);
      }
    });
    FAILED_BY_SOME_MUTANT.addAll(failed);
    assertTrue(failed.containsAll(mutant.mustFail()),
        "mutant '" + mutant.name() + "' should fail " + mutant.mustFail() + " with a broken rule,"
            + " but results were " + results);
  }

  @Test
  void correctInMemoryLogPassesThroughTheSameRunner() {
    assertPasses(new InMemoryStateLogConformanceTest(), Set.of(
        // its store lives in this JVM
        "appendIsDurableWhenTheOwnerIsKilled", "epochsRiseAcrossJvms",
        "claimIsAtomicWithItsReadWhileAnOwnerInAnotherJvmAppends",
        "ownerInAnotherJvmIsFencedByATakeOver",
        "claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased",
        "logHeldByAnotherJvmIsRefusedUntilThatJvmDies",
        // it has no checksums
        "damagedLastStateIsReportedNeverSkipped",
        // a new owner fences the old one, it is never refused
        "claimOfAHeldCoordinatorIsRefusedWithoutTakeOver",
        "secondOwnerOfAWholeLogIsRefusedWhileTheFirstIsOpen"));
  }

  @Test
  void correctFileLogPassesThroughTheSameRunner() {
    assertPasses(new FileStateLogConformanceTest(), Set.of(
        // a second owner is refused while the first lives, it fences nothing
        "appendIsDurableWhenTheOwnerIsAbandoned", "takeOverFencesThePreviousOwner",
        "claimIsAtomicWithItsReadWhileTheOldOwnerAppends",
        "claimIsAtomicWithItsReadWhileAnOwnerInAnotherJvmAppends",
        "ownerInAnotherJvmIsFencedByATakeOver",
        "claimOfAHeldCoordinatorIsRefusedWithoutTakeOver",
        "claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased"));
  }

  @Test
  void correctSharedLogPassesThroughTheSameRunner() {
    assertPasses(new SharedDirectoryStateLogConformanceTest(), Set.of(
        // each coordinator is claimed on its own, the log is never refused as a whole
        "secondOwnerOfAWholeLogIsRefusedWhileTheFirstIsOpen",
        "logHeldByAnotherJvmIsRefusedUntilThatJvmDies"));
  }

  private static void assertPasses(StateLogConformanceSuite suite, Set<String> skipped) {
    Map<String, String> results = run(suite, null);
    Map<String, String> expected = new TreeMap<>();
    for (Method test : suiteTests()) {
      expected.put(test.getName(), skipped.contains(test.getName()) ? "SKIPPED" : "PASSED");
    }
    assertEquals(expected, new TreeMap<>(results));
  }

  @AfterAll
  static void everySuiteCheckCanFail() {
    Set<String> neverFailed = new TreeSet<>();
    for (Method test : suiteTests()) {
      neverFailed.add(test.getName());
    }
    neverFailed.removeAll(FAILED_BY_SOME_MUTANT);
    assertEquals(Set.of(), neverFailed, "suite checks that no mutant made fail");
  }

  // -------------------------------------------------------------------------------- runner

  private static final String BROKE_A_RULE = "FAILED (broke a rule): ";

  static List<Method> suiteTests() {
    return AnnotationSupport.findAnnotatedMethods(
        StateLogConformanceSuite.class, Test.class, HierarchyTraversalMode.TOP_DOWN);
  }

  /**
   * Runs suite checks like JUnit would: BeforeEach, the check, AfterEach. A mutant runs only the
   * checks that must catch it (the correct logs run them all), which keeps the self-test to the
   * checks whose failure it asserts.
   *
   * @param only the names of the checks to run, or null for all
   */
  static Map<String, String> run(StateLogConformanceSuite suite, Set<String> only) {
    List<Method> before = AnnotationSupport.findAnnotatedMethods(
        suite.getClass(), BeforeEach.class, HierarchyTraversalMode.TOP_DOWN);
    List<Method> after = AnnotationSupport.findAnnotatedMethods(
        suite.getClass(), AfterEach.class, HierarchyTraversalMode.BOTTOM_UP);
    Map<String, String> results = new LinkedHashMap<>();
    for (Method test : suiteTests()) {
      if (only != null && !only.contains(test.getName())) {
        continue;
      }
      String result;
      try {
        before.forEach(m -> ReflectionSupport.invokeMethod(m, suite));
        ReflectionSupport.invokeMethod(test, suite);
        result = "PASSED";
      } catch (TestAbortedException e) {
        result = "SKIPPED";
      } catch (AssertionFailedError e) {
        String message = String.valueOf(e.getMessage());
        result = (message.startsWith("rule: ") ? BROKE_A_RULE : "FAILED: ") + message;
      } catch (Throwable e) { // a mutant may break anything; reported, not rethrown
        result = "FAILED: " + e;
      } finally {
        try {
          after.forEach(m -> ReflectionSupport.invokeMethod(m, suite));
        } catch (Throwable ignored) { // mutants may break clean-up too
        }
      }
      results.put(test.getName(), result);
    }
    return results;
  }

  // ------------------------------------------------------------------------------- mutants

  private static final List<Mutant> MUTANTS = new ArrayList<>();

  private static void mutant(String name,
      Function<Class<? extends StateLogFactory>, StateLogConformanceSuite> suite,
      Class<? extends StateLogFactory> factory, String... mustFail) {
    MUTANTS.add(new Mutant(name, () -> suite.apply(factory), Set.of(mustFail)));
  }

  static {
    mutant("in memory: the last append is written only when the next comes",
        MutantSuites.InMemory::new, Mutants.ForgetsLastAppend.class,
        "appendedStateAndMarkAreReadBackByTheNextOwner",
        "appendIsDurableWhenTheOwnerIsAbandoned",
        "concurrentAppendsOfManyCoordinatorsAreAllDurable",
        "stateOfMaxStateBytesRoundTrips",
        "payloadsAreOpaqueBytes");
    mutant("file: states are written when the log is closed",
        MutantSuites.File::new, Mutants.WritesOnClose.class,
        "appendIsDurableWhenTheOwnerIsKilled",
        "logHeldByAnotherJvmIsRefusedUntilThatJvmDies");
    mutant("in memory: a superseded owner's append succeeds",
        MutantSuites.InMemory::new, Mutants.NeverFenced.class,
        "takeOverFencesThePreviousOwner");
    mutant("in memory: epochs do not rise",
        MutantSuites.InMemory::new, Mutants.ConstantEpoch.class,
        "epochsRiseWithEveryNewOwner",
        "takeOverFencesThePreviousOwner");
    mutant("file: epochs do not rise",
        MutantSuites.File::new, Mutants.ConstantEpoch.class,
        "epochsRiseWithEveryNewOwner",
        "epochsRiseAcrossJvms",
        "secondOwnerOfAWholeLogIsRefusedWhileTheFirstIsOpen",
        "logHeldByAnotherJvmIsRefusedUntilThatJvmDies");
    mutant("file: a second owner takes a held log (in this JVM the owner's, elsewhere a new LOCK)",
        MutantSuites.File::new, Mutants.BreaksTheLock.class,
        "secondOwnerOfAWholeLogIsRefusedWhileTheFirstIsOpen",
        "logHeldByAnotherJvmIsRefusedUntilThatJvmDies");
    mutant("file: a damaged last record is cut off like a torn one",
        MutantSuites.File::new, Mutants.CutsDamageLikeATornTail.class,
        "damagedLastStateIsReportedNeverSkipped");
    mutant("in memory: compaction drops the completion marks",
        MutantSuites.InMemory::new, Mutants.CompactionDropsMarks.class,
        "compactionKeepsTheLastStateAndTheHighestMark");
    mutant("file: compaction drops the completion marks",
        MutantSuites.File::new, Mutants.CompactionDropsMarks.class,
        "compactionKeepsTheLastStateAndTheHighestMark");
    mutant("in memory: every owner makes up a new log id",
        MutantSuites.InMemory::new, Mutants.LogIdPerOwner.class,
        "logIdIsWellFormedAndStable");
    mutant("file: a log owned as a whole says it is shared",
        MutantSuites.File::new, Mutants.MisstatesSharing.class,
        "isSharedExactlyWhenCoordinatorsAreClaimedOneByOne");
    mutant("shared: a shared log says it is not",
        MutantSuites.Shared::new, Mutants.MisstatesSharing.class,
        "isSharedExactlyWhenCoordinatorsAreClaimedOneByOne");
    mutant("in memory: every log has the same id",
        MutantSuites.InMemory::new, Mutants.FixedLogId.class,
        "twoStoresHaveDifferentLogIds");
    mutant("in memory: group commit acknowledges appends it never writes",
        MutantSuites.InMemory::new, Mutants.GroupCommitDropsFollowers.class,
        "concurrentAppendsOfManyCoordinatorsAreAllDurable");
    mutant("in memory: close leaves a thread running",
        MutantSuites.InMemory::new, Mutants.LeavesAThreadRunning.class,
        "closeReleasesEverything");
    mutant("in memory: a second open of a coordinator returns the open view",
        MutantSuites.InMemory::new, Mutants.SharesOpenViews.class,
        "coordinatorOpenTwiceOnOneLogIsHeld");
    mutant("in memory: a lower checkpoint id is ignored, not refused",
        MutantSuites.InMemory::new, Mutants.IgnoresLowerIds.class,
        "checkpointIdsNeverDecrease");
    mutant("in memory: payloads pass through a String",
        MutantSuites.InMemory::new, Mutants.PayloadAsText.class,
        "payloadsAreOpaqueBytes");
    mutant("shared: a claim without takeOver takes a held coordinator over",
        MutantSuites.Shared::new, Mutants.AlwaysTakesOver.class,
        "claimOfAHeldCoordinatorIsRefusedWithoutTakeOver",
        "claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased",
        "takeOverFencesThePreviousOwner");
    mutant("shared: a superseded owner's append succeeds",
        MutantSuites.Shared::new, Mutants.NeverFenced.class,
        "takeOverFencesThePreviousOwner",
        "claimIsAtomicWithItsReadWhileTheOldOwnerAppends",
        "claimIsAtomicWithItsReadWhileAnOwnerInAnotherJvmAppends",
        "ownerInAnotherJvmIsFencedByATakeOver");
    mutant("shared: closing a view keeps the claim",
        MutantSuites.Shared::new, Mutants.CloseKeepsTheClaim.class,
        "claimOfAHeldCoordinatorIsRefusedWithoutTakeOver",
        "claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased");
    mutant("shared: epochs do not rise",
        MutantSuites.Shared::new, Mutants.ConstantEpoch.class,
        "epochsRiseWithEveryNewOwner",
        "epochsRiseAcrossJvms",
        "takeOverFencesThePreviousOwner",
        "ownerInAnotherJvmIsFencedByATakeOver",
        "claimOfAHeldCoordinatorIsRefusedWithoutTakeOver",
        "claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased");
    mutant("in memory: the claim reads first and raises the epoch after",
        MutantSuites.InMemory::new, Mutants.ReadsBeforeItClaims.class,
        "claimIsAtomicWithItsReadWhileTheOldOwnerAppends");
    mutant("shared: the claim reads first and raises the epoch after",
        MutantSuites.Shared::new, Mutants.ReadsBeforeItClaims.class,
        "claimIsAtomicWithItsReadWhileTheOldOwnerAppends",
        "claimIsAtomicWithItsReadWhileAnOwnerInAnotherJvmAppends");
    mutant("in memory: states above 1 MiB are refused",
        MutantSuites.InMemory::new, Mutants.RefusesLargeStates.class,
        "stateOfMaxStateBytesRoundTrips");
  }
}
