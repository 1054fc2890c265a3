package dev.twophase.testkit.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Participant;
import dev.twophase.ProtocolPoint;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the crash harness refuses before it starts a child, and how crashes are written. */
class CrashTestSettingsTest {

  /** A subject the harness cannot instantiate in a child: no public no-argument constructor. */
  public static final class NoDefaultConstructor implements CrashSubject<String> {
    public NoDefaultConstructor(String unused) {}

    @Override
    public Participant<?, ?> participant(CrashEnvironment environment) {
      return null;
    }

    @Override
    public String record(long n) {
      return "";
    }

    @Override
    public List<String> committedRecords(CrashEnvironment environment) {
      return List.of();
    }

    @Override
    public List<String> openTransactions(CrashEnvironment environment) {
      return List.of();
    }
  }

  @Test
  void aSubjectNeedsAPublicNoArgumentConstructor() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CrashTest.builder(NoDefaultConstructor.class).workDirectory(Path.of("x")).build());
    assertTrue(e.getMessage().contains("needs a public no-argument constructor"), e.getMessage());
  }

  @Test
  void aWorkDirectoryIsRequired() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CrashTest.builder(NoDefaultConstructor.class).build());
    assertTrue(e.getMessage().contains("workDirectory"), e.getMessage());
  }

  @Test
  void crashesAreWrittenPointColonHit() {
    assertEquals(Crash.at(ProtocolPoint.AFTER_LOG_APPEND, 2), Crash.parse("AFTER_LOG_APPEND:2"));
    assertEquals(Crash.at("my.point", 1), Crash.parse("my.point"));
    assertEquals("my.point:3", Crash.at("my.point", 3).toString());
    assertThrows(IllegalArgumentException.class, () -> Crash.parse("X:zero"));
    assertThrows(IllegalArgumentException.class, () -> Crash.at("X", 0));
    assertThrows(IllegalArgumentException.class, () -> Crash.at("a b", 1));
  }

  @Test
  void thePointsInsideTheStateLogAreAcceptedToo() {
    assertEquals("DURING_LOG_APPEND", Crash.at(ProtocolPoint.DURING_LOG_APPEND, 1).point());
    assertEquals("DURING_COMPACTION", Crash.at(ProtocolPoint.DURING_COMPACTION, 1).point());
  }

  @Test
  void everyProtocolPointTheHarnessCanReach() {
    List<String> names = CrashScenario.everyProtocolPoint().stream().map(CrashScenario::name).toList();
    assertEquals(List.of("BEFORE_PRE_COMMIT:2", "BETWEEN_PRE_COMMITS:2", "AFTER_PRE_COMMITS:2",
        "AFTER_LOG_APPEND:2", "BETWEEN_COMMITS:2", "AFTER_COMMITS:2",
        "AFTER_LOG_APPEND:2 then DURING_RECOVERY_COMMIT:1", "AFTER_LOG_APPEND:2 then DURING_RECOVERY_COMMIT:2",
        "DURING_LOG_APPEND:2", "DURING_COMPACTION:1"), names);
  }
}
