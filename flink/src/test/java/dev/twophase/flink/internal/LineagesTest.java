package dev.twophase.flink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LineagesTest {

  @Test
  void epochsAreAboveTheRestoredOneAndNeverRepeat() {
    long restored = Long.MAX_VALUE / 2;
    assertTrue(Lineages.newEpoch(restored, 0, Clock.systemUTC()) > restored);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      assertTrue(seen.add(Lineages.newEpoch(0, i % 3, Clock.systemUTC())));
    }
  }

  @Test
  void aFreshLineageIsNamedAfterTheRestoredCheckpointAndTheSubtask() {
    assertEquals("c0s3", Lineages.fresh(0, 3));
    assertEquals("c17s0", Lineages.fresh(17, 0));
  }
}
