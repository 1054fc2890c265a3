package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.internal.log.TestLogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random sequences of appends, compactions, reopens and torn tails, checked against a model of
 * (last state, highest completion) per coordinator. The seed is fixed so that runs are repeatable.
 */
class FileStateLogPropertyTest {

  private static final int COORDINATORS = 3;

  interface Op {}

  record AppendState(int coordinator, int idDelta, byte[] payload) implements Op {
    @Override
    public String toString() {
      return "AppendState[c" + coordinator + ", +" + idDelta + ", " + payload.length + " bytes]";
    }
  }

  /** A completion mark {@code back} below the next checkpoint id (so sometimes above the state). */
  record AppendCompletion(int coordinator, int back) implements Op {}

  record Compact() implements Op {}

  record Reopen() implements Op {}

  /** Cuts 1 + (cut mod size) bytes of the last record, if the last record is a test append. */
  record TearTail(int cut) implements Op {}

  /** One coordinator in the model. */
  private static final class Model {
    long stateId = -1;
    byte[] payload;
    long maxCompleted;

    Model copy() {
      Model m = new Model();
      m.stateId = stateId;
      m.payload = payload;
      m.maxCompleted = maxCompleted;
      return m;
    }
  }

  /** The last record of the file is a test append of {@code size} bytes to {@code coordinator}. */
  private record Tearable(int coordinator, Model before, long size) {}

  /**
   * The last segment and where its records end (the file may be longer: the log writes zeros
   * ahead of its appends).
   */
  private record FileState(Path lastSegment, int segments, long size) {
    static FileState of(Path dir) {
      List<Path> segments = TestLogs.segments(dir);
      Path last = segments.get(segments.size() - 1);
      return new FileState(last, segments.size(), TestLogs.recordsEnd(dir));
    }
  }

  @Provide
  @SuppressWarnings("unchecked")
  Arbitrary<List<Op>> operations() {
    Arbitrary<Integer> coordinator = Arbitraries.integers().between(0, COORDINATORS - 1);
    Arbitrary<Op> state =
        Combinators.combine(
                coordinator,
                Arbitraries.integers().between(0, 3),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300))
            .as((c, d, p) -> (Op) new AppendState(c, d, p));
    Arbitrary<Op> completion =
        Combinators.combine(coordinator, Arbitraries.integers().between(0, 3))
            .as((c, b) -> (Op) new AppendCompletion(c, b));
    Arbitrary<Op> compact = Arbitraries.just(new Compact());
    Arbitrary<Op> reopen = Arbitraries.just(new Reopen());
    Arbitrary<Op> tear = Arbitraries.integers().between(0, 1000).map(TearTail::new);
    return Arbitraries.frequencyOf(
            Tuple.of(10, state),
            Tuple.of(5, completion),
            Tuple.of(1, compact),
            Tuple.of(2, reopen),
            Tuple.of(3, tear))
        .list()
        .ofMaxSize(40);
  }

  @Property(tries = 150, seed = "7224160425")
  void logAgreesWithTheModel(@ForAll("operations") List<Op> ops) throws Exception {
    Path dir = Files.createTempDirectory("twophase-filestatelog-property");
    Model[] model = new Model[COORDINATORS];
    for (int c = 0; c < COORDINATORS; c++) {
      model[c] = new Model();
    }
    FileStateLog log = null;
    try {
      log = open(dir);
      long epoch = 1;
      assertEquals(epoch, log.ownerEpoch());
      CoordinatorLog[] views = views(log);
      Tearable tearable = null;
      for (Op op : ops) {
        if (op instanceof AppendState s) {
          Model m = model[s.coordinator()];
          Model before = m.copy();
          long id = Math.max(0, m.stateId) + s.idDelta();
          FileState fileBefore = FileState.of(dir);
          views[s.coordinator()].appendState(id, s.payload());
          m.stateId = id;
          m.payload = s.payload().clone();
          tearable = afterAppend(dir, fileBefore, tearable, s.coordinator(), before);
        } else if (op instanceof AppendCompletion c) {
          Model m = model[c.coordinator()];
          Model before = m.copy();
          long id = Math.max(0, m.stateId + 1 - c.back());
          FileState fileBefore = FileState.of(dir);
          views[c.coordinator()].appendCompletion(id);
          m.maxCompleted = Math.max(m.maxCompleted, id);
          tearable = afterAppend(dir, fileBefore, tearable, c.coordinator(), before);
        } else if (op instanceof Compact) {
          log.compact();
          assertEquals(1, TestLogs.segments(dir).size());
          tearable = null;
        } else if (op instanceof Reopen) {
          log.close();
          log = open(dir);
          assertEquals(++epoch, log.ownerEpoch());
          views = views(log);
          tearable = null;
        } else if (op instanceof TearTail t) {
          if (tearable == null) {
            continue; // the last record is not one we may tear (OWNER, or compaction output)
          }
          log.close();
          Path last = TestLogs.lastSegment(dir);
          long cutAt = TestLogs.size(last) - (1 + t.cut() % tearable.size());
          // A crash leaves the zeros written ahead after the torn record (close cut them off);
          // unless the bytes cut off were zeros themselves, which would make the record whole.
          boolean pad = t.cut() % 2 == 0 && !allZero(Files.readAllBytes(last), cutAt);
          TestLogs.truncate(last, cutAt);
          if (pad) {
            TestLogs.appendZeros(last, 1 + t.cut() % 5000);
          }
          model[tearable.coordinator()] = tearable.before();
          log = open(dir);
          assertEquals(++epoch, log.ownerEpoch());
          views = views(log);
          tearable = null;
        }
        check(views, model, op);
      }
      log.close();
      log = open(dir);
      check(views(log), model, "final reopen");
      check(FileStateLog.inspect(dir), model, log.ownerEpoch(), log.logId());
    } finally {
      if (log != null) {
        log.close();
      }
      TestLogs.deleteRecursively(dir);
    }
  }

  private static boolean allZero(byte[] bytes, long from) {
    for (int i = (int) from; i < bytes.length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static FileStateLog open(Path dir) {
    return FileStateLog.builder(dir).segmentBytes(4096).build();
  }

  private static CoordinatorLog[] views(FileStateLog log) {
    CoordinatorLog[] views = new CoordinatorLog[COORDINATORS];
    for (int c = 0; c < COORDINATORS; c++) {
      views[c] = log.open("coordinator-" + c);
    }
    return views;
  }

  private static Tearable afterAppend(
      Path dir, FileState before, Tearable previous, int coordinator, Model modelBefore) {
    FileState after = FileState.of(dir);
    if (after.equals(before)) {
      return previous; // nothing written (a completion mark that raised nothing)
    }
    if (after.lastSegment().equals(before.lastSegment())
        && after.segments() == before.segments()
        && after.size() > before.size()) {
      return new Tearable(coordinator, modelBefore, after.size() - before.size());
    }
    return null; // rolled: the last records are compaction output
  }

  private static void check(CoordinatorLog[] views, Model[] model, Object when) {
    for (int c = 0; c < COORDINATORS; c++) {
      Model m = model[c];
      StoredState s = views[c].lastState();
      if (m.stateId < 0) {
        assertNull(s, "coordinator " + c + " after " + when);
      } else {
        assertEquals(m.stateId, s.checkpointId(), "coordinator " + c + " after " + when);
        assertArrayEquals(m.payload, s.payload(), "coordinator " + c + " after " + when);
      }
      assertEquals(m.maxCompleted, views[c].lastCompletedCheckpointId(),
          "coordinator " + c + " after " + when);
    }
  }

  private static void check(StateLogSnapshot snapshot, Model[] model, long epoch, String logId) {
    assertEquals(epoch, snapshot.ownerEpoch());
    assertEquals(logId, snapshot.logId());
    assertFalse(snapshot.tailInProgress().isPresent());
    assertTrue(snapshot.segments().size() <= 2, snapshot.segments().toString());
    for (int c = 0; c < COORDINATORS; c++) {
      Model m = model[c];
      StateLogSnapshot.Coordinator sc = snapshot.coordinators().get("coordinator-" + c);
      if (m.stateId < 0 && m.maxCompleted == 0) {
        assertNull(sc);
        continue;
      }
      if (m.stateId < 0) {
        assertFalse(sc.lastState().isPresent());
      } else {
        assertEquals(m.stateId, sc.lastState().get().checkpointId());
        assertTrue(Arrays.equals(m.payload, sc.lastState().get().payload()));
      }
      assertEquals(m.maxCompleted, sc.lastCompletedCheckpointId());
    }
  }
}
