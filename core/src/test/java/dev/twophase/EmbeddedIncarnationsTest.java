package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryResource.TransactionState;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every incarnation of an embedded coordinator gets its own owner epoch, and so its own transaction
 * names, even when the same checkpoint is restored twice in the same millisecond: otherwise a
 * zombie incarnation aborting "its" transaction would abort the new incarnation's.
 */
class EmbeddedIncarnationsTest {

  private static final Clock FIXED = Clock.fixed(Instant.ofEpochMilli(1_700_000_000_000L), ZoneOffset.UTC);

  private final InMemoryResource<String> resource = new InMemoryResource<>();

  private EmbeddedCoordinator.Builder builder(InMemoryParticipant<String> p, Clock clock) {
    return EmbeddedCoordinator.builder("job")
        .participant("sink", p)
        .config(CoordinatorConfig.custom().clock(clock).build());
  }

  @Test
  void restoringTheSameCheckpointTwiceWithAFixedClockGivesTwoEpochs() {
    EmbeddedCoordinator first = builder(new InMemoryParticipant<>(resource), FIXED).build();
    byte[] state = first.snapshot(1);
    first.notifyCheckpointComplete(1);
    first.close();
    EmbeddedCoordinator a = builder(new InMemoryParticipant<>(resource), FIXED).restoreFrom(state).build();
    EmbeddedCoordinator b = builder(new InMemoryParticipant<>(resource), FIXED).restoreFrom(state).build();
    assertNotEquals(a.ownerEpoch(), b.ownerEpoch());
    assertTrue(a.ownerEpoch() > first.ownerEpoch() && b.ownerEpoch() > first.ownerEpoch());
    a.close();
    b.close();
  }

  @Test
  void fiftyBackToBackRestoresOnTheSystemClockGiveFiftyEpochs() {
    EmbeddedCoordinator first = builder(new InMemoryParticipant<>(resource), Clock.systemUTC()).build();
    byte[] state = first.snapshot(1);
    first.notifyCheckpointComplete(1);
    first.close();
    Set<Long> epochs = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      EmbeddedCoordinator c = builder(new InMemoryParticipant<>(resource), Clock.systemUTC()).restoreFrom(state).build();
      epochs.add(c.ownerEpoch());
      c.close();
    }
    assertEquals(50, epochs.size());
  }

  /**
   * The zombie scenario: incarnation A and, restored from the same checkpoint, incarnation B. B
   * decides and is about to commit; A, a zombie, closes and aborts its open transaction. With
   * shared names A's abort would remove B's pre-committed transaction and B's commit would find it
   * lost.
   */
  @Test
  void aZombieIncarnationsAbortCannotTouchTheNewIncarnationsTransaction() {
    EmbeddedCoordinator first = builder(new InMemoryParticipant<>(resource), FIXED).build();
    byte[] state = first.snapshot(1);
    first.notifyCheckpointComplete(1);

    InMemoryParticipant<String> zombieSink = InMemoryParticipant.builder(resource).fencing(false).build();
    EmbeddedCoordinator zombie = builder(zombieSink, FIXED).restoreFrom(state).build();
    InMemoryParticipant<String> liveSink = InMemoryParticipant.builder(resource).fencing(false).build();
    EmbeddedCoordinator live = builder(liveSink, FIXED).restoreFrom(state).build();
    live.output(liveSink).write("x");
    live.snapshot(2);

    zombie.close(); // aborts the zombie's open transaction

    live.notifyCheckpointComplete(2); // would throw TransactionLostException with shared names
    assertEquals(List.of("x"), resource.committedRecords());
    live.close();
  }

  /**
   * An attempt that fails before its first checkpoint completes leaves a pre-committed and an open
   * transaction; the engine starts the next attempt fresh. With the same lineage, the next
   * attempt's recovery aborts both; with a new random lineage each time (no lineage given), they
   * are not its own and stay.
   */
  @Test
  void aFreshStartWithTheSameLineageAbortsWhatAnEarlierFreshAttemptLeft() {
    Set<String> left = leftByAFailedFirstAttempt("job7.s0");
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator next = builder(sink, Clock.systemUTC()).lineage("job7.s0").build();
    for (String name : left) {
      assertEquals(TransactionState.ABORTED, resource.state(name).orElseThrow(), name);
    }
    assertEquals(Set.of(next.currentTransaction(sink).name()), resource.openTransactions());
    next.close();
  }

  @Test
  void withoutALineageAnEarlierFreshAttemptsTransactionsAreNotOwn() {
    Set<String> left = leftByAFailedFirstAttempt(null);
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator next = builder(sink, Clock.systemUTC()).build();
    assertTrue(resource.openTransactions().containsAll(left), resource.openTransactions().toString());
    next.close();
  }

  @Test
  void aRestoredStatesLineageWinsOverTheGivenOne() {
    EmbeddedCoordinator first = builder(new InMemoryParticipant<>(resource), Clock.systemUTC()).lineage("a1").build();
    byte[] state = first.snapshot(1);
    first.notifyCheckpointComplete(1);
    first.close();
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator restored = builder(sink, Clock.systemUTC()).lineage("b2").restoreFrom(state).build();
    assertTrue(restored.currentTransaction(sink).name().startsWith("job-sink-a1-"),
        restored.currentTransaction(sink).name());
    restored.close();
  }

  @Test
  void aBlankOrOverlongLineageIsRefused() {
    EmbeddedCoordinator.Builder b = EmbeddedCoordinator.builder("job");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> b.lineage(" "))
        .getMessage().contains("lineage must be 1 to 64 characters"));
    assertThrows(IllegalArgumentException.class, () -> b.lineage("x".repeat(65)));
  }

  /** A first attempt, fresh, that writes, snapshots checkpoint 1 (never completed) and dies. */
  private Set<String> leftByAFailedFirstAttempt(String lineage) {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator.Builder b = builder(sink, Clock.systemUTC());
    if (lineage != null) {
      b.lineage(lineage);
    }
    EmbeddedCoordinator first = b.build();
    first.output(sink).write("a");
    first.snapshot(1);
    first.output(sink).write("b");
    Set<String> left = resource.openTransactions();
    assertEquals(2, left.size(), "checkpoint 1's pre-committed transaction and the open one: " + left);
    return left; // not closed: the attempt is gone
  }
}
