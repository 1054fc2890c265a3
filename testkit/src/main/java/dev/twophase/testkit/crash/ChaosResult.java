package dev.twophase.testkit.crash;

import dev.twophase.annotation.Experimental;
import java.util.Map;

/**
 * What {@link CrashTest#chaos(long, int)} did, all scenarios having passed.
 *
 * @param seed the seed the scenarios were drawn from; the same seed draws the same scenarios
 * @param scenarios the number of scenarios run
 * @param children the child JVMs run
 * @param crashes the children that halted at their crash
 * @param notReached the children whose crash point was not reached that many times, which then
 *     ran to the end (allowed in chaos mode: a random hit may lie beyond what a child reaches)
 * @param crashesByPoint how many children halted at each point
 */
@Experimental
public record ChaosResult(
    long seed, int scenarios, int children, int crashes, int notReached, Map<String, Integer> crashesByPoint) {

  /** Copies the map. */
  public ChaosResult {
    crashesByPoint = Map.copyOf(crashesByPoint);
  }
}
