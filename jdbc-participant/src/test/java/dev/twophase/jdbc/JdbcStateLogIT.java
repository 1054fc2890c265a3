package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Claims, fencing, appends, releases and damage of {@link JdbcStateLog} on every SQL dialect. */
class JdbcStateLogIT {

  private static JdbcStateLog.Builder builder(TestDatabase db, String table) {
    return JdbcStateLog.builder(db.plain()).table(table);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void claimAppendReleaseAndReadBack(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    try {
      String logId;
      try (JdbcStateLog log = builder(db, table).ownerName("one").build()) {
        logId = log.logId();
        assertTrue(logId.matches("[a-z0-9]{8}"), logId);
        StateLog.CoordinatorLog c = log.open("p0");
        assertEquals(1, c.ownerEpoch());
        assertNull(c.lastState());
        assertEquals(0, c.lastCompletedCheckpointId());
        assertEquals(logId, c.logId());
        c.appendState(1, bytes("one"));
        c.appendState(1, bytes("one again"));
        c.appendState(2, bytes("two"));
        c.appendCompletion(1);
        assertEquals("one", StateLogTables.holder(db.plain(), table, "p0"));
        c.close();
        assertNull(StateLogTables.holder(db.plain(), table, "p0"), "released");
        assertEquals(1, StateLogTables.epoch(db.plain(), table, "p0"), "epoch kept");
        assertEquals(1, StateLogTables.completed(db.plain(), table, "p0"), "mark written by close");
        assertEquals(3, log.stats().stateAppends());
      }
      try (JdbcStateLog log = builder(db, table).ownerName("two").build()) {
        assertEquals(logId, log.logId(), "the id is created once");
        StateLog.CoordinatorLog c = log.open("p0");
        assertEquals(2, c.ownerEpoch());
        assertEquals(new StoredState(2, bytes("two")), c.lastState());
        assertEquals(1, c.lastCompletedCheckpointId());
        assertThrows(IllegalArgumentException.class, () -> c.appendState(1, bytes("back")));
        StateLog.CoordinatorLog other = log.open("P0"); // another coordinator, on every database
        assertNull(other.lastState());
        StateLog.CoordinatorLog padded = log.open("p0 ");
        assertNull(padded.lastState());
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aHeldCoordinatorIsRefusedUnlessTakenOverAndTheHolderIsFenced(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    try (JdbcStateLog first = builder(db, table).ownerName("host-a:1").build();
        JdbcStateLog second = builder(db, table).ownerName("host-b:2").build();
        JdbcStateLog thief = builder(db, table).ownerName("host-c:3").takeOver(true).build()) {
      StateLog.CoordinatorLog a = first.open("p0");
      a.appendState(1, bytes("a1"));
      CoordinatorHeldException held = assertThrows(CoordinatorHeldException.class,
          () -> second.open("p0"));
      assertEquals("host-a:1", held.holder());
      assertEquals(1, held.holderEpoch());
      String m = held.getMessage();
      assertTrue(m.contains("coordinator 'p0' in state log table " + table), m);
      assertTrue(m.contains("held by owner 'host-a:1' under epoch 1, claimed at 20"), m);
      assertTrue(m.contains("takeOver(true)"), m);
      assertEquals(1, StateLogTables.epoch(db.plain(), table, "p0"), "a refusal claims nothing");
      CoordinatorHeldException twice = assertThrows(CoordinatorHeldException.class,
          () -> first.open("p0"));
      assertTrue(twice.getMessage().contains("already open on this JdbcStateLog"),
          twice.getMessage());

      StateLog.CoordinatorLog c = thief.open("p0");
      assertEquals(2, c.ownerEpoch());
      assertEquals(new StoredState(1, bytes("a1")), c.lastState());
      FencedException fenced = assertThrows(FencedException.class,
          () -> a.appendState(2, bytes("a2")));
      m = fenced.getMessage();
      assertTrue(m.contains("coordinator 'p0' (epoch 1)"), m);
      assertTrue(m.contains("held by 'host-c:3'"), m);
      assertTrue(m.contains("checkpoint 2 was not stored"), m);
      assertThrows(FencedException.class, () -> a.appendState(3, bytes("a3")), "stays fenced");
      a.close(); // releases nothing
      assertEquals("host-c:3", StateLogTables.holder(db.plain(), table, "p0"));
      c.appendState(2, bytes("c2"));
      assertEquals(1, first.stats().fencedAppends());
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void theSameOwnerNameReclaimsWithoutTakeOverAndFencesItsEarlierSelf(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    try (JdbcStateLog before = builder(db, table).ownerName("orders-7").build();
        JdbcStateLog restarted = builder(db, table).ownerName("orders-7").build()) {
      StateLog.CoordinatorLog old = before.open("p0");
      old.appendState(5, bytes("five"));
      StateLog.CoordinatorLog now = restarted.open("p0");
      assertEquals(2, now.ownerEpoch());
      assertEquals(5, now.lastState().checkpointId());
      assertThrows(FencedException.class, () -> old.appendState(6, bytes("six")));
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aDamagedStateIsReportedAndNothingIsClaimed(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    try {
      try (JdbcStateLog log = builder(db, table).build()) {
        StateLog.CoordinatorLog c = log.open("p0");
        c.appendState(3, bytes("a state of some length"));
        c.close();
      }
      StateLogTables.flipPayloadByte(db.plain(), table, "p0");
      try (JdbcStateLog log = builder(db, table).build()) {
        StateLogCorruptedException e = assertThrows(StateLogCorruptedException.class,
            () -> log.open("p0"));
        String m = e.getMessage();
        assertTrue(m.contains("state log table " + table), m);
        assertTrue(m.contains("coordinator 'p0' (checkpoint 3"), m);
        assertTrue(m.contains("fails its checksum"), m);
        assertNull(e.file());
        assertEquals(1, StateLogTables.epoch(db.plain(), table, "p0"), "nothing was claimed");
        assertThrows(StateLogCorruptedException.class, () -> log.open("p0"), "and again");
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void aStateOfTheLargestSizeIsStoredAndReadBack(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    byte[] big = new byte[StateLog.MAX_STATE_BYTES];
    new Random(7).nextBytes(big);
    try {
      try (JdbcStateLog log = builder(db, table).build()) {
        StateLog.CoordinatorLog c = log.open("big");
        c.appendState(1, big);
        assertThrows(IllegalArgumentException.class,
            () -> c.appendState(2, new byte[StateLog.MAX_STATE_BYTES + 1]));
      }
      try (JdbcStateLog log = builder(db, table).build()) {
        assertArrayEquals(big, log.open("big").lastState().payload());
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void buildsRacingOnAnEmptyTableAgreeOnOneLogId(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<String>> builds = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        builds.add(() -> {
          try (JdbcStateLog log = builder(db, table).build()) {
            return log.logId();
          }
        });
      }
      List<String> ids = new ArrayList<>();
      for (Future<String> f : pool.invokeAll(builds)) {
        ids.add(f.get());
      }
      assertEquals(1, ids.stream().distinct().count(), ids.toString());
    } finally {
      pool.shutdownNow();
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void closingTheLogReleasesEveryViewAndLeavesNothingBehind(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    CountingDataSource ds = new CountingDataSource(db.plain());
    try {
      JdbcStateLog log = JdbcStateLog.builder(ds).table(table).ownerName("x").build();
      StateLog.CoordinatorLog a = log.open("a");
      StateLog.CoordinatorLog b = log.open("b");
      a.appendState(1, bytes("a"));
      b.appendState(1, bytes("b"));
      b.appendCompletion(1);
      log.close();
      log.close();
      assertFalse(log.writerThread().isAlive());
      assertEquals(0, ds.open(), "every connection given back");
      assertNull(StateLogTables.holder(db.plain(), table, "a"));
      assertNull(StateLogTables.holder(db.plain(), table, "b"));
      assertEquals(1, StateLogTables.completed(db.plain(), table, "b"));
      assertThrows(FencedException.class, () -> a.appendState(2, bytes("late")));
      assertThrows(FencedException.class, () -> log.open("c"));
      try (JdbcStateLog next = builder(db, table).build()) {
        assertEquals(2, next.open("a").ownerEpoch(), "claimed without take-over");
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  /** A clock whose next reading throws an Error: a callback failing in the middle of a claim. */
  private static final class FailingClock extends Clock {
    final AtomicBoolean failNext = new AtomicBoolean();

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      if (failNext.getAndSet(false)) {
        throw new AssertionError("clock broke");
      }
      return Instant.now();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void anErrorInTheMiddleOfAClaimLeavesNoLockAndNoConnection(TestDatabase db) throws Exception {
    String table = StateLogTables.fresh();
    CountingDataSource ds = new CountingDataSource(db.plain());
    FailingClock clock = new FailingClock();
    try (JdbcStateLog log = JdbcStateLog.builder(ds).table(table).clock(clock).build()) {
      log.open("p0").close(); // the row exists: the next claim locks it
      clock.failNext.set(true);
      assertThrows(AssertionError.class, () -> log.open("p0"));
      assertEquals(1, ds.open(), "only the writer's connection: the claim's was discarded");
      try (JdbcStateLog other = builder(db, table).timeout(Duration.ofSeconds(3)).build()) {
        assertEquals(2, other.open("p0").ownerEpoch(), "the row is not left locked");
      }
    } finally {
      StateLogTables.drop(db, table);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#dialects")
  void anErrorFromTheDataSourceFailsTheCallAndLeavesNothingBehind(TestDatabase db)
      throws Exception {
    String table = StateLogTables.fresh();
    CountingDataSource ds = new CountingDataSource(db.plain());
    try {
      JdbcStateLog log = JdbcStateLog.builder(ds).table(table).build();
      ds.failNext(new AssertionError("pool broke"));
      assertThrows(AssertionError.class, () -> log.open("p0"));
      StateLog.CoordinatorLog c = log.open("p0"); // not left reserved
      ds.failNext(new OutOfMemoryError("pool broke in the writer")); // its first connection
      FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
          () -> c.appendState(1, bytes("one")));
      assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
      assertInstanceOf(OutOfMemoryError.class, e.getCause());
      c.appendState(1, bytes("one")); // nothing was sent, so the view is still usable
      log.close();
      assertFalse(log.writerThread().isAlive());
      assertEquals(0, ds.open());
      assertNotEquals(0, ds.handedOut());
    } finally {
      StateLogTables.drop(db, table);
    }
  }
}
