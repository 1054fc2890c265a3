package dev.twophase;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.TestLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileStateLog.Builder#faultInjector}: where the log calls it, and what an injector that
 * throws does. (Child JVMs halted at these points: FileStateLogProcessTest.)
 */
class FileStateLogFaultInjectorTest {

  @TempDir Path tmp;

  /** Records the points reached, and runs {@code action} at one of them. */
  private static final class Recorder implements FaultInjector {
    final List<String> reached = new ArrayList<>();
    String armed;
    Runnable action = () -> {};

    @Override
    public synchronized void reached(String point) {
      reached.add(point);
      if (point.equals(armed)) {
        action.run();
      }
    }

    synchronized long count(ProtocolPoint point) {
      return reached.stream().filter(point.name()::equals).count();
    }
  }

  @Test
  void duringLogAppendIsReachedOncePerSyncedAppendAndNeverForMarksOrTheOpen() {
    Recorder faults = new Recorder();
    try (FileStateLog log = FileStateLog.builder(tmp).faultInjector(faults).build()) {
      assertEquals(List.of(), faults.reached, "opening the log");
      CoordinatorLog a = log.open("a");
      for (int i = 1; i <= 5; i++) {
        a.appendState(i, ("state-" + i).getBytes(UTF_8));
        a.appendCompletion(i);
      }
      assertEquals(5, faults.count(ProtocolPoint.DURING_LOG_APPEND));
      log.compact(); // nothing staged: the roll writes no appended records before it syncs
      assertEquals(5, faults.count(ProtocolPoint.DURING_LOG_APPEND));
      assertEquals(1, faults.count(ProtocolPoint.DURING_COMPACTION));
    }
  }

  /** A roll that an append triggers syncs that append: the point comes before that sync too. */
  @Test
  void duringLogAppendIsReachedWhenARollSyncsTheAppend() {
    Recorder faults = new Recorder();
    try (FileStateLog log =
        FileStateLog.builder(tmp).segmentBytes(4096).faultInjector(faults).build()) {
      CoordinatorLog a = log.open("a");
      for (int i = 1; i <= 40; i++) {
        a.appendState(i, new byte[300]);
      }
      assertTrue(log.stats().compactions() > 0);
      assertEquals(40, faults.count(ProtocolPoint.DURING_LOG_APPEND));
      assertEquals(log.stats().compactions(), faults.count(ProtocolPoint.DURING_COMPACTION));
    }
  }

  /**
   * What a JVM halted at DURING_LOG_APPEND leaves, in one process: the directory copied at that
   * point holds the record whole; cut inside it (a power loss), the next owner cuts it off.
   */
  @Test
  void theFilesAtDuringLogAppendHoldTheRecordWhole() throws IOException {
    Path live = tmp.resolve("live");
    Path copy = tmp.resolve("copy");
    Recorder faults = new Recorder();
    faults.armed = ProtocolPoint.DURING_LOG_APPEND.name();
    try (FileStateLog log = FileStateLog.builder(live).faultInjector(faults).build()) {
      CoordinatorLog a = log.open("a");
      a.appendState(1, "one".getBytes(UTF_8));
      faults.action = () -> {
        try {
          TestLogs.copyDir(live, copy);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      };
      a.appendState(2, "two".getBytes(UTF_8));
    }
    StateLogSnapshot.State two =
        FileStateLog.inspect(copy).coordinator("a").orElseThrow().lastState().orElseThrow();
    assertEquals(2, two.checkpointId());
    TestLogs.truncate(copy.resolve(two.position().file().getFileName()),
        two.position().offset() + two.position().length() / 2);
    try (FileStateLog log = FileStateLog.open(copy)) {
      assertEquals(new StoredState(1, "one".getBytes(UTF_8)), log.open("a").lastState());
    }
  }

  /** An injector that throws fails the append: its outcome is unknown, the log unusable. */
  @Test
  void anInjectorThatThrowsFailsTheAppendLikeAFailedSync() {
    Recorder faults = new Recorder();
    faults.armed = ProtocolPoint.DURING_LOG_APPEND.name();
    FileStateLog log = FileStateLog.builder(tmp).faultInjector(faults).build();
    CoordinatorLog a = log.open("a");
    a.appendState(1, "one".getBytes(UTF_8));
    faults.action = () -> {
      throw new IllegalStateException("injected");
    };
    FatalTwoPhaseException e =
        assertThrows(FatalTwoPhaseException.class, () -> a.appendState(2, "two".getBytes(UTF_8)));
    assertTrue(e.getMessage().contains("fault injected at DURING_LOG_APPEND"), e.getMessage());
    assertTrue(e.getMessage().contains("may or may not be durable"), e.getMessage());
    faults.armed = null;
    assertThrows(FatalTwoPhaseException.class, () -> a.appendState(3, "three".getBytes(UTF_8)));
    log.close();
    try (FileStateLog reopened = FileStateLog.open(tmp)) {
      long id = reopened.open("a").lastState().checkpointId();
      assertTrue(id == 1 || id == 2, "either outcome: " + id);
    }
  }

  @Test
  void anInjectorThatThrowsDuringCompactionFailsItAndLosesNothing() {
    Recorder faults = new Recorder();
    faults.armed = ProtocolPoint.DURING_COMPACTION.name();
    AtomicInteger thrown = new AtomicInteger();
    faults.action = () -> {
      thrown.incrementAndGet();
      throw new IllegalStateException("injected");
    };
    FileStateLog log = FileStateLog.builder(tmp).faultInjector(faults).build();
    for (int c = 0; c < 3; c++) {
      log.open("c" + c).appendState(5, ("c" + c).getBytes(UTF_8));
    }
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, log::compact);
    assertTrue(e.getMessage().contains("fault injected at DURING_COMPACTION"), e.getMessage());
    assertEquals(1, thrown.get());
    log.close();
    try (FileStateLog reopened = FileStateLog.open(tmp)) {
      for (int c = 0; c < 3; c++) {
        assertEquals(new StoredState(5, ("c" + c).getBytes(UTF_8)), reopened.open("c" + c).lastState());
      }
      reopened.compact();
    }
  }
}
