package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StateLogStatsTest {

  @Test
  void minusGivesTheIntervalAndNeverGoesBelowZero() {
    StateLogStats earlier = StateLogStats.of(10, 4, 1000, 5, 1, 2, 1);
    StateLogStats later = StateLogStats.of(30, 9, 3000, 9, 2, 3, 1);
    assertEquals(StateLogStats.of(20, 5, 2000, 4, 1, 1, 0), later.minus(earlier));
    assertEquals(StateLogStats.empty(), earlier.minus(later));
    assertEquals(5.0, later.minus(earlier).appendsPerSync());
  }

  @Test
  void appendsPerSyncIsZeroWithoutSyncs() {
    assertEquals(0.0, StateLogStats.empty().appendsPerSync());
    assertEquals(0.0, StateLogStats.of(3, 0, 0, 0, 0, 0, 0).appendsPerSync());
    assertEquals(2.5, StateLogStats.of(5, 0, 0, 2, 0, 0, 0).appendsPerSync());
  }

  @Test
  void countsAreValidated() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StateLogStats.of(0, 0, 0, -1, 0, 0, 0));
    assertTrue(e.getMessage().contains("syncs"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> StateLogStats.of(0, 0, 0, 0, 0, 1, 2));
  }

  @Test
  void valueSemantics() {
    StateLogStats a = StateLogStats.of(1, 2, 3, 4, 5, 6, 7 - 1);
    assertEquals(a, StateLogStats.of(1, 2, 3, 4, 5, 6, 6));
    assertEquals(a.hashCode(), StateLogStats.of(1, 2, 3, 4, 5, 6, 6).hashCode());
    assertNotEquals(a, StateLogStats.of(1, 2, 3, 4, 5, 6, 5));
    assertEquals("StateLogStats{stateAppends=1, completionMarks=2, appendedBytes=3, syncs=4, "
        + "appendsPerSync=0.25, compactions=5, standbyTakeovers=6, standbyTakeoversDuringSync=6}",
        a.toString());
  }
}
