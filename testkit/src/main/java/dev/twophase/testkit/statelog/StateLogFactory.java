package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;
import dev.twophase.annotation.PublicEvolving;
import java.util.Map;

/**
 * Opens the {@link StateLog} under test, in the test's JVM and in the child JVMs of {@link
 * StateLogConformanceSuite}. An implementation is a public class with a public no-argument
 * constructor on the test class path; everything it needs to find the store (a directory, a JDBC
 * URL and table, bootstrap servers and a topic) comes in the settings, so that a child JVM opens
 * the very store the test opened.
 */
@PublicEvolving
public interface StateLogFactory {

  /**
   * Opens a new owner on the store the settings name, as a newly started process would.
   *
   * @param settings what {@link StateLogConformanceSuite#storeSettings()} returned for this test
   * @param takeOver whether the new owner takes over coordinators that another owner holds and
   *     has not released (a log owned as a whole ignores it)
   */
  StateLog open(Map<String, String> settings, boolean takeOver) throws Exception;
}
