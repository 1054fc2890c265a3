package dev.twophase.testkit.statelog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StateLog.CoordinatorLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.StoredState;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.PublicEvolving;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite every {@link StateLog} implementation should pass. Extend it in a test
 * class (an {@code *IT} when the store is a real server) and implement the hooks; JUnit runs
 * every check against your log. docs/state-log-testing.md shows an example.
 *
 * <p>Hooks: {@link #setUpStore()} makes a fresh, empty store for one test (a directory, a table
 * name, a topic) and {@link #storeSettings()} names it; {@link #factory()} opens owners on it, in
 * this JVM and in child JVMs; {@link #damageLastState(String)} damages what the store holds for
 * a coordinator so that its checksum fails. Optional: {@link #compact(StateLog)}, {@link
 * #storeOutlivesJvm()}, {@link #storeCanBeDamaged()}, {@link #childJvmOptions()}.
 *
 * <p>Every owner the suite opens comes from {@link StateLogFactory#open}, as a new process would
 * open the log; a check that needs another process starts a child JVM ({@code StateLogChild}) on
 * the test class path, which opens its owner through the same factory and settings. The suite
 * closes every owner it opened and kills every child after each test, before {@link
 * #tearDownStore()}.
 *
 * <p>Which ownership checks run depends on {@link #ownership()}; the others are skipped, and so
 * are the checks across JVMs for a store that lives in one JVM ({@link #storeOutlivesJvm()}).
 * Each failure message starts with the rule of {@link StateLog}'s contract that the log broke.
 */
@PublicEvolving
public abstract class StateLogConformanceSuite {

  /** For subclasses. */
  protected StateLogConformanceSuite() {}

  // ------------------------------------------------------------------------- for subclasses

  /**
   * Makes a fresh, empty store for the next test. Called before each test, and once more in
   * {@code twoStoresHaveDifferentLogIds}, which needs a second store: every call makes a new
   * one, and {@link #storeSettings()} names the newest.
   */
  protected abstract void setUpStore() throws Exception;

  /**
   * Removes what {@link #setUpStore()} made (every store since the test began); called after
   * every test, also a failed one, once the suite closed its owners and killed its child JVMs.
   */
  protected void tearDownStore() throws Exception {}

  /** What {@link StateLogFactory#open} needs to find this test's store. */
  protected abstract Map<String, String> storeSettings();

  /** The factory class; instantiated through its no-argument constructor, here and in child JVMs. */
  protected abstract Class<? extends StateLogFactory> factory();

  /** How the log is owned; decides which ownership checks run. */
  protected abstract Ownership ownership();

  /**
   * Damages the last state the store holds for {@code coordinatorId} (no owner has the log open),
   * so that the next open must report it as {@link dev.twophase.StateLogCorruptedException}: flip
   * a byte of the payload, say, leaving its checksum as it was.
   */
  protected abstract void damageLastState(String coordinatorId) throws Exception;

  /**
   * Compacts the log now, if it compacts (FileStateLog: {@code FileStateLog::compact}). The
   * suite calls it in the middle of its appends; default: nothing (a log that compacts by itself
   * should then be configured, in its settings, to do it often).
   */
  protected void compact(StateLog log) throws Exception {}

  /**
   * Whether the store outlives the JVM that opened it, so that child JVMs can open it. Default
   * true; false (an in-memory store) skips the checks across JVMs.
   */
  protected boolean storeOutlivesJvm() {
    return true;
  }

  /**
   * Whether {@link #damageLastState(String)} can damage the store. Default true; false (a store
   * without checksums, in memory) skips {@code damagedLastStateIsReportedNeverSkipped}.
   */
  protected boolean storeCanBeDamaged() {
    return true;
  }

  /**
   * Options for the child JVMs' {@code java} command, before the class path (system properties
   * your factory reads, {@code -Xmx}, say). Default: none.
   */
  protected List<String> childJvmOptions() {
    return List.of();
  }

  // ------------------------------------------------------------------------------ life cycle

  private final List<StateLog> owners = new ArrayList<>();
  private final List<ChildLog> children = new ArrayList<>();

  @BeforeEach
  final void setUpSuite() throws Exception {
    owners.clear();
    children.clear();
    setUpStore();
  }

  @AfterEach
  final void tearDownSuite() throws Exception {
    AssertionError childLeft = null;
    try {
      for (ChildLog child : children) {
        try {
          child.close();
        } catch (AssertionError e) { // it did not die: the others are still ended
          childLeft = e;
        }
      }
      for (StateLog owner : owners) {
        try {
          owner.close();
        } catch (RuntimeException e) {
          // a broken log may fail to close; the store is removed anyway
        }
      }
    } finally {
      owners.clear();
      children.clear();
      tearDownStore();
    }
    if (childLeft != null) {
      throw childLeft;
    }
  }

  // ---------------------------------------------------------------------------- durability

  @Test
  void appendedStateAndMarkAreReadBackByTheNextOwner() throws Exception {
    String c = "durable";
    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    assertNull(view.lastState(),
        "rule: a coordinator never appended has no last state (null), but a fresh store returned "
            + view.lastState());
    assertEquals(0, view.lastCompletedCheckpointId(),
        "rule: a coordinator never completed has completion mark 0");
    for (long id = 1; id <= 3; id++) {
      view.appendState(id, Payloads.of(c, id));
    }
    view.appendCompletion(2);
    view.close();
    log.close();

    Map<String, Readout> read = readBack(c, "never-appended");
    assertState(read.get(c), c, 3, Payloads.of(c, 3),
        "rule: appendState returns only once its record is durable, and the next owner reads the"
            + " last state");
    assertEquals(2, read.get(c).completed(),
        "rule: the next owner reads the highest completion mark that reached the store (the owner"
            + " closed its log, so every mark did)");
    assertNull(read.get("never-appended").state(),
        "rule: a coordinator never appended has no last state, also for the next owner");
  }

  @Test
  void appendIsDurableWhenTheOwnerIsAbandoned() throws Exception {
    assumeTrue(ownership() != Ownership.WHOLE_LOG,
        "a log owned as a whole has no second owner while the first lives in this JVM;"
            + " appendIsDurableWhenTheOwnerIsKilled checks it across JVMs");
    String c = "abandoned";
    StateLog abandoned = newOwner(false);
    CoordinatorLog view = abandoned.open(c);
    for (long id = 1; id <= 3; id++) {
      view.appendState(id, Payloads.of(c, id));
    }
    view.appendCompletion(2);
    view.appendState(4, Payloads.of(c, 4));
    // neither the view nor the log is closed, as after a crash

    Readout read = readBack(c).get(c);
    assertState(read, c, 4, Payloads.of(c, 4),
        "rule: appendState returns only once its record is durable: the next owner reads it"
            + " although the previous owner never closed anything");
    assertMarkWasAppended(read.completed(), Set.of(0L, 2L));
  }

  @Test
  void appendIsDurableWhenTheOwnerIsKilled() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    String c = "killed";
    ChildLog child = startChild("owner", false);
    child.ok("openlog");
    child.ok("open " + c);
    for (long id = 1; id <= 3; id++) {
      child.ok("append " + c + " " + id);
    }
    child.ok("complete " + c + " 2");
    child.ok("append " + c + " 4");
    child.kill();

    Readout read = readBack(c).get(c);
    assertState(read, c, 4, Payloads.of(c, 4),
        "rule: appendState returns only once its record is durable: the append returned in a JVM"
            + " that was then killed (destroyForcibly), and the next owner must read it");
    assertMarkWasAppended(read.completed(), Set.of(0L, 2L));
  }

  // -------------------------------------------------------------------------------- epochs

  @Test
  void epochsRiseWithEveryNewOwner() throws Exception {
    String c = "epochs";
    long previous = 0;
    for (int owner = 1; owner <= 3; owner++) {
      StateLog log = newOwner(false);
      CoordinatorLog view = log.open(c);
      assertTrue(view.ownerEpoch() > previous,
          "rule: every claim of a coordinator has a higher owner epoch than every earlier one:"
              + " owner " + owner + " (a new log object) claimed '" + c + "' at epoch "
              + view.ownerEpoch() + ", after an earlier owner's epoch " + previous);
      view.appendState(owner, Payloads.of(c, owner));
      view.close();
      CoordinatorLog again = log.open(c);
      assertTrue(again.ownerEpoch() >= view.ownerEpoch(),
          "rule: owner epochs only rise: claimed again on the same log object, '" + c
              + "' has epoch " + again.ownerEpoch() + " after " + view.ownerEpoch());
      previous = again.ownerEpoch();
      again.close();
      log.close();
    }
  }

  @Test
  void epochsRiseAcrossJvms() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    String c = "epochs-across-jvms";
    ChildLog first = startChild("first", false);
    first.ok("openlog");
    long firstEpoch = Long.parseLong(first.ok("open " + c)[0]);
    first.ok("append " + c + " 1");
    first.ok("closelog");
    first.kill();

    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    assertTrue(view.ownerEpoch() > firstEpoch,
        "rule: every claim has a higher owner epoch than every earlier one, in any JVM: this JVM"
            + " claimed '" + c + "' at epoch " + view.ownerEpoch() + " after a child JVM's epoch "
            + firstEpoch);
    view.appendState(2, Payloads.of(c, 2));
    view.close();
    log.close();

    ChildLog second = startChild("second", false);
    second.ok("openlog");
    String[] claimed = second.ok("open " + c);
    long secondEpoch = Long.parseLong(claimed[0]);
    assertTrue(secondEpoch > view.ownerEpoch(),
        "rule: every claim has a higher owner epoch than every earlier one, in any JVM: a child"
            + " JVM claimed '" + c + "' at epoch " + secondEpoch + " after this JVM's epoch "
            + view.ownerEpoch());
    assertEquals("2", claimed[1], "rule: a claim reads the last state of every earlier owner");
    second.kill();

    Readout read = readBack(c).get(c);
    assertTrue(read.epoch() > secondEpoch,
        "rule: every claim has a higher owner epoch than every earlier one, also after an owner"
            + " was killed: epoch " + read.epoch() + " after a killed child JVM's epoch "
            + secondEpoch);
  }

  // ---------------------------------------------------------------- ownership in this JVM

  @Test
  void takeOverFencesThePreviousOwner() throws Exception {
    assumeTrue(ownership() != Ownership.WHOLE_LOG, "a log owned as a whole refuses a second owner");
    String c = "fenced";
    StateLog first = newOwner(false);
    CoordinatorLog old = first.open(c);
    old.appendState(1, Payloads.of(c, 1));

    StateLog second = newOwner(true);
    CoordinatorLog now = second.open(c);
    assertTrue(now.ownerEpoch() > old.ownerEpoch(),
        "rule: a claim raises the coordinator's epoch above every earlier owner's: " + now.ownerEpoch()
            + " after " + old.ownerEpoch());
    assertState(now.lastState(), c, 1, Payloads.of(c, 1),
        "rule: the claim reads everything the earlier owner appended");
    assertThrows(TwoPhaseException.class, () -> old.appendState(2, Payloads.of(c, 2)),
        "rule: once another owner claimed the coordinator, the superseded owner's append fails"
            + " (FencedException, or another TwoPhaseException if the log cannot know the outcome)");
    if (ownership() == Ownership.PER_COORDINATOR) {
      old.close();
      StateLog third = newOwner(false);
      assertThrows(CoordinatorHeldException.class, () -> third.open(c),
          "rule: a fenced view releases nothing: after the superseded owner closed its view, the"
              + " new owner still holds '" + c + "' and a claim without takeOver is refused");
    }
    now.close();
    second.close();

    assertState(readBack(c).get(c), c, 1, Payloads.of(c, 1),
        "rule: a fenced append stores nothing: the next owner must read the superseded owner's last"
            + " successful append (checkpoint 1), never the fenced one");
  }

  @Test
  void claimOfAHeldCoordinatorIsRefusedWithoutTakeOver() throws Exception {
    assumeTrue(ownership() == Ownership.PER_COORDINATOR, "only a log with per-coordinator claims");
    String c = "held";
    StateLog holder = newOwner(false);
    CoordinatorLog held = holder.open(c);
    held.appendState(1, Payloads.of(c, 1));

    StateLog other = newOwner(false);
    CoordinatorHeldException refused = assertThrows(CoordinatorHeldException.class,
        () -> other.open(c),
        "rule: a claim of a coordinator another owner holds and has not released is refused"
            + " (CoordinatorHeldException) unless the log takes coordinators over");
    assertHeldExceptionNames(refused, c);
    assertDoesNotThrow(() -> held.appendState(2, Payloads.of(c, 2)),
        "rule: a refused claim changes nothing: the holder still appends");
    held.close();

    CoordinatorLog claimed = assertDoesNotThrow(() -> other.open(c),
        "rule: closing a view releases the coordinator: a claim without takeOver then succeeds");
    assertTrue(claimed.ownerEpoch() > held.ownerEpoch(),
        "rule: a claim raises the epoch above every earlier owner's: " + claimed.ownerEpoch()
            + " after " + held.ownerEpoch());
    assertState(claimed.lastState(), c, 2, Payloads.of(c, 2),
        "rule: a claim reads everything earlier owners appended");
  }

  @Test
  void secondOwnerOfAWholeLogIsRefusedWhileTheFirstIsOpen() throws Exception {
    assumeTrue(ownership() == Ownership.WHOLE_LOG, "only a log owned as a whole");
    String c = "whole";
    StateLog first = newOwner(false);
    CoordinatorLog view = first.open(c);
    view.appendState(1, Payloads.of(c, 1));

    assertThrows(TwoPhaseException.class, () -> newOwner(true),
        "rule: a log owned as a whole refuses a second owner while the first has it open");
    assertDoesNotThrow(() -> view.appendState(2, Payloads.of(c, 2)),
        "rule: a refused owner changes nothing: the first owner still appends");
    long firstEpoch = view.ownerEpoch();
    first.close();

    StateLog second = newOwner(false);
    CoordinatorLog claimed = second.open(c);
    assertTrue(claimed.ownerEpoch() > firstEpoch,
        "rule: the next owner has a higher epoch: " + claimed.ownerEpoch() + " after " + firstEpoch);
    assertState(claimed.lastState(), c, 2, Payloads.of(c, 2),
        "rule: the next owner reads everything the first appended");
  }

  @Test
  void coordinatorOpenTwiceOnOneLogIsHeld() throws Exception {
    String c = "twice";
    StateLog log = newOwner(false);
    CoordinatorLog first = log.open(c);
    first.appendState(1, Payloads.of(c, 1));
    CoordinatorHeldException refused = assertThrows(CoordinatorHeldException.class,
        () -> log.open(c),
        "rule: a coordinator open on a log object cannot be opened on it again"
            + " (CoordinatorHeldException): two coordinators must never share an id");
    assertHeldExceptionNames(refused, c);
    assertDoesNotThrow(() -> first.appendState(2, Payloads.of(c, 2)),
        "rule: a refused open changes nothing: the open view still appends");
    first.close();
    CoordinatorLog again = assertDoesNotThrow(() -> log.open(c),
        "rule: closing a view releases the coordinator id: it can be opened again");
    assertState(again.lastState(), c, 2, Payloads.of(c, 2),
        "rule: a view opened again reads the last state appended");
  }

  @Test
  void claimIsAtomicWithItsReadWhileTheOldOwnerAppends() throws Exception {
    assumeTrue(ownership() != Ownership.WHOLE_LOG, "a log owned as a whole refuses a second owner");
    String c = "racing";
    StateLog first = newOwner(false);
    CoordinatorLog old = first.open(c);
    old.appendState(1, Payloads.of(c, 1));
    RacingAppender appender = new RacingAppender(old);
    appender.start();
    try {
      appender.awaitAppends(5);
      StateLog second = newOwner(true);
      CoordinatorLog now = second.open(c);
      StoredState read = now.lastState();
      Throwable failure = appender.awaitFailure(10_000);
      assertNotNull(failure,
          "rule: once another owner claimed the coordinator, the superseded owner's appends fail,"
              + " but it went on appending up to checkpoint " + appender.lastReturned());
      assertTrue(failure instanceof TwoPhaseException,
          "rule: a superseded owner's append fails with FencedException (or another"
              + " TwoPhaseException if the log cannot know the outcome), not " + failure);
      assertClaimWasAtomic(c, read, appender.lastReturned(),
          failure instanceof FencedException, failure.getClass().getSimpleName());
      now.close();
      second.close();
      assertState(readBack(c).get(c), c, read.checkpointId(), Payloads.of(c, read.checkpointId()),
          "rule: nothing the superseded owner appended after the claim is stored");
    } finally {
      appender.stop();
    }
  }

  // ------------------------------------------------------------------- ownership across JVMs

  @Test
  void claimIsAtomicWithItsReadWhileAnOwnerInAnotherJvmAppends() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    assumeTrue(ownership() != Ownership.WHOLE_LOG, "a log owned as a whole refuses a second owner");
    String c = "racing-elsewhere";
    ChildLog old = startChild("racing owner", false);
    old.ok("openlog");
    old.ok("open " + c);
    old.ok("append " + c + " 1");
    old.ok("appendloop " + c);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (Long.parseLong(old.ok("loopstatus " + c)[0]) < 6 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }

    StateLog log = newOwner(true);
    CoordinatorLog now = log.open(c);
    StoredState read = now.lastState();
    String[] ended = old.ok("awaitloop " + c + " 10000");
    long last = Long.parseLong(ended[0]);
    String failure = ended[1];
    assertNotEquals("none", failure,
        "rule: once another owner claimed the coordinator, the superseded owner's appends (in a"
            + " child JVM) fail, but it went on appending up to checkpoint " + last);
    assertTrue(ChildLog.isA(failure, TwoPhaseException.class),
        "rule: a superseded owner's append fails with FencedException (or another"
            + " TwoPhaseException if the log cannot know the outcome), not " + failure);
    assertClaimWasAtomic(c, read, last, ChildLog.isA(failure, FencedException.class),
        failure);
    now.close();
    log.close();
    assertState(readBack(c).get(c), c, read.checkpointId(), Payloads.of(c, read.checkpointId()),
        "rule: nothing the superseded owner (in a child JVM) appended after the claim is stored");
  }

  @Test
  void ownerInAnotherJvmIsFencedByATakeOver() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    assumeTrue(ownership() != Ownership.WHOLE_LOG, "a log owned as a whole refuses a second owner");
    String c = "zombie";
    ChildLog zombie = startChild("zombie", false);
    zombie.ok("openlog");
    long zombieEpoch = Long.parseLong(zombie.ok("open " + c)[0]);
    zombie.ok("append " + c + " 1");
    zombie.ok("append " + c + " 2");

    StateLog log = newOwner(true);
    CoordinatorLog now = log.open(c);
    assertTrue(now.ownerEpoch() > zombieEpoch,
        "rule: a claim raises the epoch above every earlier owner's: " + now.ownerEpoch()
            + " after a child JVM's " + zombieEpoch);
    assertState(now.lastState(), c, 2, Payloads.of(c, 2),
        "rule: a claim reads everything the earlier owner (in a child JVM) appended");
    ChildLog.Reply reply = zombie.send("append " + c + " 3");
    assertTrue(reply.isA(TwoPhaseException.class),
        "rule: once another owner claimed the coordinator, the superseded owner's append (in a"
            + " child JVM) fails (FencedException, or another TwoPhaseException if the log cannot"
            + " know the outcome); it replied: " + reply.line());
    now.close();
    log.close();

    assertState(readBack(c).get(c), c, 2, Payloads.of(c, 2),
        "rule: a fenced append stores nothing: the state read is the superseded owner's last"
            + " successful append (checkpoint 2), never a later one");
  }

  @Test
  void claimOfACoordinatorHeldInAnotherJvmIsRefusedUntilReleased() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    assumeTrue(ownership() == Ownership.PER_COORDINATOR, "only a log with per-coordinator claims");
    String c = "held-elsewhere";
    ChildLog holder = startChild("holder", false);
    holder.ok("openlog");
    long holderEpoch = Long.parseLong(holder.ok("open " + c)[0]);
    holder.ok("append " + c + " 1");

    StateLog log = newOwner(false);
    CoordinatorHeldException refused = assertThrows(CoordinatorHeldException.class,
        () -> log.open(c),
        "rule: a claim of a coordinator another process holds and has not released is refused"
            + " (CoordinatorHeldException) unless the log takes coordinators over");
    assertHeldExceptionNames(refused, c);
    ChildLog.Reply after = holder.send("append " + c + " 2");
    assertTrue(after.ok(),
        "rule: a refused claim changes nothing: the holder (a child JVM) still appends; it"
            + " replied: " + after.line());
    holder.ok("close " + c);

    CoordinatorLog claimed = assertDoesNotThrow(() -> log.open(c),
        "rule: a closed view releases the coordinator in the store: a claim without takeOver"
            + " then succeeds");
    assertTrue(claimed.ownerEpoch() > holderEpoch,
        "rule: a claim raises the epoch above every earlier owner's: " + claimed.ownerEpoch()
            + " after " + holderEpoch);
    assertState(claimed.lastState(), c, 2, Payloads.of(c, 2),
        "rule: a claim reads everything earlier owners appended");
  }

  @Test
  void logHeldByAnotherJvmIsRefusedUntilThatJvmDies() throws Exception {
    assumeTrue(storeOutlivesJvm(), "the store lives in one JVM");
    assumeTrue(ownership() == Ownership.WHOLE_LOG, "only a log owned as a whole");
    String c = "whole-elsewhere";
    ChildLog first = startChild("first", false);
    first.ok("openlog");
    long firstEpoch = Long.parseLong(first.ok("open " + c)[0]);
    first.ok("append " + c + " 1");

    assertThrows(TwoPhaseException.class, () -> newOwner(true),
        "rule: a log owned as a whole refuses a second owner while the first (a child JVM) lives");
    ChildLog.Reply after = first.send("append " + c + " 2");
    assertTrue(after.ok(),
        "rule: a refused owner changes nothing: the first owner (a child JVM) still appends; it"
            + " replied: " + after.line());
    first.kill();

    Readout read = readBack(c).get(c);
    assertTrue(read.epoch() > firstEpoch,
        "rule: the next owner has a higher epoch: " + read.epoch() + " after a killed child's "
            + firstEpoch);
    assertState(read, c, 2, Payloads.of(c, 2),
        "rule: the next owner reads every durable append of the killed one");
  }

  // ------------------------------------------------------------------------ ids and damage

  @Test
  void checkpointIdsNeverDecrease() throws Exception {
    String c = "ids";
    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    view.appendState(5, Payloads.of(c, 5));
    assertThrows(IllegalArgumentException.class, () -> view.appendState(4, Payloads.of(c, 4)),
        "rule: appendState with a checkpoint id lower than the last appended (5) throws"
            + " IllegalArgumentException");
    byte[] repeated = Payloads.of(c + " repeated", 5);
    assertDoesNotThrow(() -> view.appendState(5, repeated),
        "rule: the same checkpoint id may be appended again");
    view.close();
    log.close();

    StateLog next = newOwner(false);
    CoordinatorLog reopened = next.open(c);
    assertState(reopened.lastState(), c, 5, repeated,
        "rule: the last state is the last append, also when it repeats a checkpoint id");
    assertThrows(IllegalArgumentException.class, () -> reopened.appendState(4, Payloads.of(c, 4)),
        "rule: appendState with a checkpoint id lower than the last appended throws"
            + " IllegalArgumentException, also after the log was reopened");
  }

  @Test
  void damagedLastStateIsReportedNeverSkipped() throws Exception {
    assumeTrue(storeCanBeDamaged(), "the store cannot be damaged");
    String c = "damaged";
    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    view.appendState(1, Payloads.of(c, 1));
    view.appendState(2, Payloads.of(c, 2));
    view.close();
    log.close();
    damageLastState(c);

    StoredState[] read = new StoredState[1];
    boolean[] claimed = new boolean[1];
    assertThrows(StateLogCorruptedException.class, () -> {
      StateLog next = newOwner(true);
      CoordinatorLog damaged = next.open(c);
      claimed[0] = true;
      read[0] = damaged.lastState();
    }, () -> "rule: damage is reported, never skipped: after its last state was damaged, opening"
        + " the log or claiming '" + c + "' must throw StateLogCorruptedException"
        + (claimed[0] ? ", but the claim returned a view whose last state is " + read[0]
            + " (the last state appended was checkpoint 2)" : ""));
  }

  // ---------------------------------------------------------------------------- compaction

  @Test
  void compactionKeepsTheLastStateAndTheHighestMark() throws Exception {
    StateLog log = newOwner(false);
    String early = "marked-early";
    CoordinatorLog earlyView = log.open(early);
    earlyView.appendState(1, Payloads.of(early, 1));
    earlyView.appendCompletion(1);
    earlyView.appendState(2, Payloads.of(early, 2));

    Map<String, CoordinatorLog> views = new LinkedHashMap<>();
    Map<String, Long> marks = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      views.put("busy-" + i, log.open("busy-" + i));
    }
    int rounds = 120;
    for (int round = 1; round <= rounds; round++) {
      for (Map.Entry<String, CoordinatorLog> e : views.entrySet()) {
        e.getValue().appendState(round, Payloads.of(e.getKey(), round, 200));
        if (round % 7 == 0) {
          e.getValue().appendCompletion(round - 3);
          marks.put(e.getKey(), round - 3L);
        }
      }
      if (round % 40 == 0) {
        compact(log);
      }
    }
    compact(log);
    log.close();

    List<String> ids = new ArrayList<>(views.keySet());
    ids.add(early);
    Map<String, Readout> read = readBack(ids.toArray(String[]::new));
    assertState(read.get(early), early, 2, Payloads.of(early, 2),
        "rule: compaction keeps each coordinator's last state, also of one that appended nothing"
            + " since the oldest records");
    assertEquals(1, read.get(early).completed(),
        "rule: compaction keeps each coordinator's highest completion mark, also one written before"
            + " every compaction ('" + early + "' completed checkpoint 1)");
    for (String c : views.keySet()) {
      assertState(read.get(c), c, rounds, Payloads.of(c, rounds, 200),
          "rule: compaction keeps each coordinator's last state");
      assertEquals(marks.get(c), read.get(c).completed(),
          "rule: compaction keeps each coordinator's highest completion mark ('" + c + "')");
    }
  }

  // -------------------------------------------------------------------------------- log id

  private static final Pattern LOG_ID = Pattern.compile("[a-z0-9]{8}");

  @Test
  void logIdIsWellFormedAndStable() throws Exception {
    StateLog log = newOwner(false);
    String id = log.logId();
    assertTrue(id != null && LOG_ID.matcher(id).matches(),
        "rule: a log id is 8 characters of [a-z0-9], was " + id);
    CoordinatorLog a = log.open("id-a");
    CoordinatorLog b = log.open("id-b");
    assertEquals(id, a.logId(), "rule: every view's logId() is its log's logId()");
    assertEquals(id, b.logId(), "rule: every view's logId() is its log's logId()");
    for (long cp = 1; cp <= 20; cp++) {
      a.appendState(cp, Payloads.of("id-a", cp, 300));
    }
    compact(log);
    assertEquals(id, log.logId(), "rule: the log id stays the same through compaction");
    assertEquals(id, a.logId(), "rule: the log id stays the same through compaction");
    log.close();

    for (boolean takeOver : new boolean[] {false, true}) {
      StateLog next = newOwner(takeOver);
      assertEquals(id, next.logId(),
          "rule: the log id is the same for the log's whole life, through every reopening");
      CoordinatorLog view = next.open("id-a");
      assertEquals(id, view.logId(), "rule: every view's logId() is its log's logId()");
      view.close();
      next.close();
    }
  }

  /**
   * A log whose coordinators are claimed one by one, fencing their owners in any process, says it
   * is shared, and only such a log does: the participants let a newer owner epoch of a shared log
   * take their own claims over, which is safe only where that epoch fenced every earlier owner.
   */
  @Test
  void isSharedExactlyWhenCoordinatorsAreClaimedOneByOne() throws Exception {
    StateLog log = newOwner(false);
    boolean perCoordinator = ownership() == Ownership.PER_COORDINATOR;
    assertEquals(perCoordinator, log.isShared(), perCoordinator
        ? "rule: a log whose coordinators are claimed one by one is shared (isShared() true), so that the "
            + "participants' own claims yield to a new owner while the old owner's process lives"
        : "rule: a log owned as a whole is not shared (isShared() false): a copy of it counts epochs of its "
            + "own, and a participant must not yield its claim to an epoch of another copy");
  }

  @Test
  void twoStoresHaveDifferentLogIds() throws Exception {
    StateLog first = newOwner(false);
    String firstId = first.logId();
    first.close();
    setUpStore();
    StateLog second = newOwner(false);
    String secondId = second.logId();
    assertNotEquals(firstId, secondId,
        "rule: the log id is chosen at random when a log is created: two fresh stores got the same"
            + " id " + firstId);
  }

  // --------------------------------------------------------------------------- concurrency

  @Test
  void concurrentAppendsOfManyCoordinatorsAreAllDurable() throws Exception {
    int coordinators = 64;
    int threads = 16;
    int appendsPerThread = 50;
    StateLog log = newOwner(false);
    List<CoordinatorLog> views = new ArrayList<>();
    for (int i = 0; i < coordinators; i++) {
      views.add(log.open("concurrent-" + i));
    }
    long[] last = new long[coordinators];
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          start.await(60, TimeUnit.SECONDS);
          int per = coordinators / threads;
          for (int k = 0; k < appendsPerThread; k++) {
            int i = thread + threads * (k % per);
            long cp = k / per + 1L;
            views.get(i).appendState(cp, Payloads.of("concurrent-" + i, cp));
            last[i] = cp; // each coordinator has one thread; read after get()
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        assertDoesNotThrow(() -> f.get(300, TimeUnit.SECONDS),
            "rule: concurrent appends of different coordinators all succeed");
      }
    } finally {
      pool.shutdownNow();
    }
    log.close();

    String[] ids = new String[coordinators];
    for (int i = 0; i < coordinators; i++) {
      ids[i] = "concurrent-" + i;
    }
    Map<String, Readout> read = readBack(ids);
    for (int i = 0; i < coordinators; i++) {
      assertState(read.get(ids[i]), ids[i], last[i], Payloads.of(ids[i], last[i]),
          "rule: every append that returned is durable, also among " + threads
              + " threads appending at once: each coordinator's last state is its last append");
    }
  }

  // ------------------------------------------------------------------------------ release

  @Test
  void closeReleasesEverything() throws Exception {
    String c = "released";
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    view.appendState(1, Payloads.of(c, 1));
    view.appendCompletion(1);
    CoordinatorLog other = log.open(c + "-other");
    other.appendState(1, Payloads.of(c + "-other", 1));
    compact(log);
    log.close();

    List<String> left = LiveThreads.awaitEnd(before, 10_000);
    assertEquals(List.of(), left,
        "rule: close() releases everything: threads started by the log still alive 10 s after"
            + " close()");
    assertThrows(TwoPhaseException.class, () -> view.appendState(2, Payloads.of(c, 2)),
        "rule: after StateLog.close(), the views still open on it fail their next append (with a"
            + " TwoPhaseException)");

    StateLog next = newOwner(false);
    CoordinatorLog claimed = assertDoesNotThrow(() -> next.open(c),
        "rule: close() releases every coordinator still open: a new owner claims it without"
            + " taking it over");
    assertState(claimed.lastState(), c, 1, Payloads.of(c, 1),
        "rule: the next owner reads the last state");
  }

  // ----------------------------------------------------------------------------- payloads

  @Test
  void stateOfMaxStateBytesRoundTrips() throws Exception {
    String c = "largest";
    byte[] largest = Payloads.of(c, 1, StateLog.MAX_STATE_BYTES);
    StateLog log = newOwner(false);
    CoordinatorLog view = log.open(c);
    assertDoesNotThrow(() -> {
      view.appendState(1, largest);
      view.appendState(2, Payloads.of(c, 2));
      view.appendState(3, largest);
    }, "rule: the log stores states up to MAX_STATE_BYTES (" + StateLog.MAX_STATE_BYTES
        + " bytes), but an append of that size failed");
    view.close();
    log.close();
    Readout read = readBack(c).get(c);
    assertNotNull(read.state(), "rule: the log stores states up to MAX_STATE_BYTES: none read back");
    assertEquals(3, read.state().checkpointId(),
        "rule: the log stores states up to MAX_STATE_BYTES: wrong checkpoint read back");
    assertTrue(java.util.Arrays.equals(largest, read.state().payload()),
        "rule: the log stores states up to MAX_STATE_BYTES (" + StateLog.MAX_STATE_BYTES
            + " bytes): the payload read back differs (" + read.state().payload().length
            + " bytes)");
  }

  @Test
  void payloadsAreOpaqueBytes() throws Exception {
    List<byte[]> payloads = new ArrayList<>();
    payloads.add(new byte[0]);
    payloads.add(new byte[] {0});
    payloads.add(new byte[] {(byte) 0xFF});
    byte[] everyByte = new byte[512];
    for (int i = 0; i < everyByte.length; i++) {
      everyByte[i] = (byte) (255 - i % 256);
    }
    payloads.add(everyByte);
    payloads.add(new byte[1000]);
    byte[] ones = new byte[1000];
    java.util.Arrays.fill(ones, (byte) 0xFF);
    payloads.add(ones);
    payloads.add(new byte[] {(byte) 0xC0, (byte) 0x80, '\r', '\n', 0, (byte) 0xED, (byte) 0xA0});

    StateLog log = newOwner(false);
    for (int i = 0; i < payloads.size(); i++) {
      CoordinatorLog view = log.open("opaque-" + i);
      view.appendState(1, payloads.get(i));
      view.close();
    }
    log.close();
    String[] ids = new String[payloads.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = "opaque-" + i;
    }
    Map<String, Readout> read = readBack(ids);
    for (int i = 0; i < ids.length; i++) {
      assertState(read.get(ids[i]), ids[i], 1, payloads.get(i),
          "rule: payloads are opaque bytes (empty, 0x00, 0xFF, invalid UTF-8), stored as given");
    }
  }

  // -------------------------------------------------------------------------------- helpers

  /** What a new owner read for one coordinator. */
  private record Readout(long epoch, StoredState state, long completed) {}

  /** A new owner of the test's store, as a newly started process would open it. */
  private StateLog newOwner(boolean takeOver) throws Exception {
    StateLogFactory f;
    try {
      f = factory().getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new LinkageError(factory().getName() + " cannot be created through its no-argument"
          + " constructor (the suite and its child JVMs need one, public, in a public class): " + e,
          e);
    }
    StateLog log = f.open(storeSettings(), takeOver);
    assertNotNull(log, factory().getName() + ".open returned null");
    owners.add(log);
    return log;
  }

  private ChildLog startChild(String name, boolean takeOver) throws Exception {
    ChildLog child = ChildLog.start(name, childJvmOptions(), factory(), storeSettings(), takeOver);
    children.add(child);
    return child;
  }

  /**
   * Opens a new owner (taking coordinators over), reads what it has for {@code coordinators},
   * and closes it again.
   */
  private Map<String, Readout> readBack(String... coordinators) throws Exception {
    StateLog log = newOwner(true);
    Map<String, Readout> read = new HashMap<>();
    for (String c : coordinators) {
      CoordinatorLog view = log.open(c);
      read.put(c, new Readout(view.ownerEpoch(), view.lastState(), view.lastCompletedCheckpointId()));
      view.close();
    }
    log.close();
    return read;
  }

  private static void assertState(Readout read, String c, long checkpointId, byte[] payload,
      String rule) {
    assertState(read.state(), c, checkpointId, payload, rule);
  }

  private static void assertState(StoredState state, String c, long checkpointId, byte[] payload,
      String rule) {
    if (state == null) {
      fail(rule + ": coordinator '" + c + "' has no state; expected checkpoint " + checkpointId);
    }
    assertEquals(checkpointId, state.checkpointId(),
        rule + ": coordinator '" + c + "' has the wrong last state");
    assertArrayEquals(payload, state.payload(),
        rule + ": the payload of coordinator '" + c + "' at checkpoint " + checkpointId
            + " is not the bytes appended");
  }

  /**
   * The rule of a claim made while the previous owner appended in a loop: the claim read exactly
   * the last append to return, or, if the append that failed has an unknown outcome (not a
   * FencedException), possibly that one, which may have been stored before the claim.
   */
  private static void assertClaimWasAtomic(String c, StoredState read, long last, boolean fenced,
      String failure) {
    assertNotNull(read, "rule: the claim reads everything earlier owners appended: it read none");
    long got = read.checkpointId();
    assertTrue(got == last || (!fenced && got == last + 1),
        "rule: the claim and its read are one atomic step: the new owner read checkpoint " + got
            + ", but the superseded owner's last append to return was " + last
            + (got < last ? " (it returned after the read: the claim fenced too late)"
                : " (an append that failed with " + failure + " was read)"));
    assertState(read, c, got, Payloads.of(c, got), "rule: the claim reads the bytes appended");
  }

  private static void assertMarkWasAppended(long mark, Set<Long> possible) {
    assertTrue(possible.contains(mark),
        "rule: the next owner reads the highest completion mark that reached the store: a mark"
            + " that was appended, or none if the owner did not close (marks are not synced); read "
            + mark + ", possible " + possible);
  }

  private static void assertHeldExceptionNames(CoordinatorHeldException e, String c) {
    assertEquals(c, e.coordinatorId(),
        "rule: CoordinatorHeldException names the coordinator that could not be claimed");
    assertFalse(e.holder() == null || e.holder().isBlank(),
        "rule: CoordinatorHeldException names the holder");
  }
}
