package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;

/**
 * The suite on a mutant's factory, over the in-memory or the file store. Not named *Test: the
 * self-test runs them by reflection, surefire does not.
 */
final class MutantSuites {

  private MutantSuites() {}

  /** Runs the suite's compaction on a mutant that has one, otherwise on the log it wraps. */
  private static StateLog compactMutant(StateLog log) {
    if (log instanceof Mutants.Compactable compactable) {
      compactable.compact();
      return null;
    }
    return log instanceof DelegatingStateLog d ? d.innermost() : log;
  }

  static final class InMemory extends InMemoryStateLogConformanceTest {
    private final Class<? extends StateLogFactory> mutant;

    InMemory(Class<? extends StateLogFactory> mutant) {
      this.mutant = mutant;
    }

    @Override
    protected Class<? extends StateLogFactory> factory() {
      return mutant;
    }

    @Override
    protected void compact(StateLog log) {
      compactMutant(log);
    }
  }

  static final class File extends FileStateLogConformanceTest {
    private final Class<? extends StateLogFactory> mutant;

    File(Class<? extends StateLogFactory> mutant) {
      this.mutant = mutant;
    }

    @Override
    protected Class<? extends StateLogFactory> factory() {
      return mutant;
    }

    @Override
    protected void compact(StateLog log) {
      StateLog inner = compactMutant(log);
      if (inner != null) {
        super.compact(inner);
      }
    }
  }

  static final class Shared extends SharedDirectoryStateLogConformanceTest {
    private final Class<? extends StateLogFactory> mutant;

    Shared(Class<? extends StateLogFactory> mutant) {
      this.mutant = mutant;
    }

    @Override
    protected Class<? extends StateLogFactory> factory() {
      return mutant;
    }

    @Override
    protected void compact(StateLog log) {
      compactMutant(log);
    }
  }
}
