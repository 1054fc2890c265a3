package dev.twophase;

import dev.twophase.annotation.Experimental;

/**
 * Testing knobs for crash and fault tests, injected as an object (never switched on by a system
 * property): code that takes part in the protocol calls {@link #reached(String)} at named points,
 * and a test's injector may halt the JVM there, as {@code kill -9} would, or throw.
 *
 * <p>The coordinator calls it at the {@link ProtocolPoint}s (set it with
 * {@link CoordinatorConfig.Builder#faultInjector(FaultInjector)}); {@link FileStateLog} at its own
 * points inside an append and a compaction. A participant that wants its own operations crash-tested
 * (the middle of a {@code commit}, say) accepts an injector in its builder and calls it at points
 * it names and documents, such as {@code "jdbc.commit.afterCommitPrepared"}.
 *
 * <p>Production code passes {@link #none()}: a call is then an interface call that returns at once,
 * and no point sits on a per-record path.
 */
@FunctionalInterface
@Experimental
public interface FaultInjector {

  /**
   * The caller reached {@code point}. An injector may halt the JVM, throw (the caller treats the
   * exception as a failure of the operation it is in), or return.
   */
  void reached(String point);

  /** The injector that does nothing. */
  static FaultInjector none() {
    return NoFaults.INSTANCE;
  }
}
