package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;
import dev.twophase.annotation.PublicEvolving;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The conformance suite every {@link StateLog} implementation should pass. Extend it in a test
 * class (an {@code *IT} when the store is a real server) and implement the hooks; JUnit runs
 * every check against your log.
 *
 * <p>Hooks: {@link #setUpStore()} makes a fresh, empty store for one test (a directory, a table
 * name, a topic) and {@link #storeSettings()} names it; {@link #factory()} opens owners on it, in
 * this JVM and in child JVMs; {@link #damageLastState(String)} damages what the store holds for
 * a coordinator so that its checksum fails.
 */
@PublicEvolving
public abstract class StateLogConformanceSuite {

  /** Makes a fresh, empty store for the next test. */
  protected abstract void setUpStore() throws Exception;

  /** Removes what {@link #setUpStore()} made; called after every test, also a failed one. */
  protected void tearDownStore() throws Exception {}

  /** What {@link StateLogFactory#open} needs to find this test's store. */
  protected abstract Map<String, String> storeSettings();

  /** The factory class; instantiated through its no-argument constructor, here and in child JVMs. */
  protected abstract Class<? extends StateLogFactory> factory();

  /** How the log is owned; decides which ownership checks run. */
  protected abstract Ownership ownership();

  /**
   * Damages the last state the store holds for {@code coordinatorId} (no owner has the log open),
   * so that the next open must report it as {@link dev.twophase.StateLogCorruptedException}: flip
   * a byte of the payload, say, leaving its checksum as it was.
   */
  protected abstract void damageLastState(String coordinatorId) throws Exception;

  @BeforeEach
  final void setUpSuite() throws Exception {
    setUpStore();
  }

  @AfterEach
  final void tearDownSuite() throws Exception {
    tearDownStore();
  }
}
