package dev.twophase.testkit.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FaultInjector;
import dev.twophase.testing.CrashInjector;
import org.junit.jupiter.api.Test;

class CrashPointsTest {

  @Test
  void aMistypedPointIsRefusedWithTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CrashPoints.parse("file.commit.afterRenam:2", "file.commit.afterRename"));
    assertTrue(e.getMessage().contains("no such point 'file.commit.afterRenam'"), e.getMessage());
    assertTrue(e.getMessage().contains("file.commit.afterRename"), e.getMessage());
    assertTrue(e.getMessage().contains("AFTER_LOG_APPEND"), e.getMessage());
  }

  @Test
  void aProtocolPointNeedsNoRegistration() {
    CrashInjector injector = (CrashInjector) CrashPoints.parse("AFTER_LOG_APPEND:3");
    assertEquals("AFTER_LOG_APPEND", injector.point());
    assertEquals(3, injector.hit());
  }

  @Test
  void aRegisteredParticipantPointIsAccepted() {
    CrashInjector injector = (CrashInjector) CrashPoints.parse("kafka.preCommit.afterFlush", "kafka.preCommit.afterFlush");
    assertEquals("kafka.preCommit.afterFlush", injector.point());
    assertEquals(1, injector.hit());
  }

  @Test
  void anUnregisteredParticipantPointIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> CrashPoints.parse("kafka.preCommit.afterFlush"));
  }

  @Test
  void noSpecIsNoInjector() {
    assertSame(FaultInjector.none(), CrashPoints.parse(null));
    assertSame(FaultInjector.none(), CrashPoints.parse(" "));
  }
}
