package dev.twophase.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FaultInjector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Crash specs are checked against the points that exist, so that a mistyped one cannot pass. */
class CrashInjectorTest {

  @Test
  void aMistypedPointIsRefusedWithTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CrashInjector.parse("file.commit.afterRenam:2", List.of("file.commit.afterRename")));
    assertTrue(e.getMessage().contains("no such point 'file.commit.afterRenam'"), e.getMessage());
    assertTrue(e.getMessage().contains("file.commit.afterRename"), e.getMessage());
    assertTrue(e.getMessage().contains("AFTER_LOG_APPEND"), e.getMessage());
  }

  @Test
  void aMistypedProtocolPointIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CrashInjector.parse("AFTER_LOG_APEND"));
    assertTrue(e.getMessage().contains("known points: AFTER_COMMITS"), e.getMessage());
    assertTrue(e.getMessage().contains("parse(spec, otherPoints)"), e.getMessage());
  }

  @Test
  void aProtocolPointNeedsNoRegistration() {
    CrashInjector injector = (CrashInjector) CrashInjector.parse("AFTER_LOG_APPEND:3");
    assertEquals("AFTER_LOG_APPEND", injector.point());
    assertEquals(3, injector.hit());
  }

  @Test
  void aRegisteredParticipantPointIsAccepted() {
    CrashInjector injector = (CrashInjector) CrashInjector.parse(" kafka.preCommit.afterFlush ",
        List.of("kafka.preCommit.afterFlush"));
    assertEquals("kafka.preCommit.afterFlush", injector.point());
    assertEquals(1, injector.hit());
  }

  @Test
  void anUnregisteredParticipantPointIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> CrashInjector.parse("kafka.preCommit.afterFlush"));
  }

  @Test
  void aMalformedHitIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CrashInjector.parse("AFTER_LOG_APPEND:x"));
    assertTrue(e.getMessage().contains("POINT:HIT"), e.getMessage());
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> CrashInjector.parse("AFTER_LOG_APPEND:0"));
    assertTrue(zero.getMessage().startsWith("crash spec 'AFTER_LOG_APPEND:0'"), zero.getMessage());
  }

  @Test
  void noSpecIsNoInjector() {
    assertSame(FaultInjector.none(), CrashInjector.parse(null));
    assertSame(FaultInjector.none(), CrashInjector.parse(" "));
  }
}
