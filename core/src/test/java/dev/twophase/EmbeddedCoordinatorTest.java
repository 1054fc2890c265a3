package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The seed's scenarios (Flink's TwoPhaseCommitSinkFunctionTest), against the embedded coordinator
 * and an in-memory participant: the engine's checkpoints drive everything.
 */
class EmbeddedCoordinatorTest {

  private final MutableClock clock = new MutableClock(0);
  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final RecordingListener listener = new RecordingListener();

  private InMemoryParticipant<String> newParticipant() {
    return InMemoryParticipant.builder(resource).clock(clock).build();
  }

  private EmbeddedCoordinator.Builder builder(InMemoryParticipant<String> participant) {
    return EmbeddedCoordinator.builder("sink")
        .participant("memory", participant)
        .listener(listener)
        .config(CoordinatorConfig.custom().clock(clock).build());
  }

  @Test
  void commitsOnCompletedCheckpoint() {
    InMemoryParticipant<String> p = newParticipant();
    try (EmbeddedCoordinator c = builder(p).build()) {
      Output<String> out = c.output(p);
      out.write("42");
      c.snapshot(1);
      assertEquals(List.of(), resource.committedRecords(), "nothing visible before the notification");
      out.write("43");
      c.notifyCheckpointComplete(1);
      assertEquals(List.of("42"), resource.committedRecords());
      c.snapshot(2);
      c.notifyCheckpointComplete(2);
      assertEquals(List.of("42", "43"), resource.committedRecords());
      assertEquals(0, c.pendingCheckpoints());
    }
    assertEquals(Set.of(), resource.openTransactions(), "close aborts the open transaction");
  }

  @Test
  void subsumedNotificationIsANoOp() {
    InMemoryParticipant<String> p = newParticipant();
    try (EmbeddedCoordinator c = builder(p).build()) {
      Output<String> out = c.output(p);
      out.write("42");
      c.snapshot(1);
      out.write("43");
      c.snapshot(2);
      out.write("44");
      c.snapshot(3);
      c.notifyCheckpointComplete(2); // commits 1 and 2, in creation order
      assertEquals(List.of("42", "43"), resource.committedRecords());
      c.notifyCheckpointComplete(1); // late and subsumed
      assertEquals(List.of("42", "43"), resource.committedRecords());
      c.notifyCheckpointComplete(3);
      assertEquals(List.of("42", "43", "44"), resource.committedRecords());
      long commits = resource.history().stream().filter(h -> h.startsWith("commit ")).count();
      assertEquals(3, commits, resource.history().toString());
    }
  }

  @Test
  void failureBeforeNotificationThenRestoreFromOlderCheckpoint() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    Output<String> out = c.output(p);
    out.write("42");
    c.snapshot(1);
    out.write("43");
    byte[] state = c.snapshot(2);
    out.write("44");
    p.failNextPreCommit(new IOException("disk not writable"));
    CheckpointFailedException e = assertThrows(CheckpointFailedException.class, () -> c.snapshot(3));
    assertEquals(3, e.checkpointId().getAsLong());
    assertEquals("memory", e.participant().orElseThrow());
    c.close(); // the engine fails the task

    InMemoryParticipant<String> restored = newParticipant();
    try (EmbeddedCoordinator again = builder(restored).restoreFrom(state).build()) {
      assertEquals(List.of("42", "43"), resource.committedRecords());
      assertEquals(2, again.lastCheckpointId());
      assertEquals(1, resource.openTransactions().size(), "only the new transaction is open");
    }
    assertEquals(Set.of(), resource.openTransactions(), "no transaction left behind");
  }

  @Test
  void failedRecoverAndCommitBeforeTimeoutFailsStartUpAndAfterTimeoutIsIgnored() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    c.output(p).write("42");
    byte[] state = c.snapshot(1);
    c.close();

    CoordinatorConfig config =
        CoordinatorConfig.custom().clock(clock).transactionTimeout(Duration.ofSeconds(1))
            .ignoreFailuresAfterTransactionTimeout().build();

    InMemoryParticipant<String> failing = newParticipant();
    failing.failNextCommits(1, new IOException("expected"));
    RetriableTwoPhaseException e = assertThrows(RetriableTwoPhaseException.class,
        () -> builder(failing).config(config).restoreFrom(state).build());
    assertTrue(e.getMessage().contains("checkpoint 1"), e.getMessage());
    assertEquals("memory", e.participant().orElseThrow());
    assertEquals(List.of(), resource.committedRecords());

    clock.set(1001);
    InMemoryParticipant<String> stillFailing = newParticipant();
    stillFailing.failNextCommits(1, new IOException("expected"));
    try (EmbeddedCoordinator ok = builder(stillFailing).config(config).restoreFrom(state).build()) {
      assertEquals(CoordinatorState.RUNNING, ok.state());
    }
    assertEquals(List.of(), resource.committedRecords(), "the failed transaction was dropped");
    assertTrue(listener.recoveries.stream()
        .anyMatch(r -> r.kind() == CoordinatorListener.RecoveryAction.Kind.LOST_IGNORED));
  }

  @Test
  void lostTransactionWithoutOptInFailsWithCheckpointAndHandle() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    c.output(p).write("42");
    c.snapshot(1);
    p.loseOnNextCommit();
    TransactionLostException e = assertThrows(TransactionLostException.class, () -> c.notifyCheckpointComplete(1));
    assertEquals(1, e.checkpointId().getAsLong());
    assertTrue(e.getMessage().contains("sink-memory-"), e.getMessage());
    assertTrue(e.getMessage().contains("No transaction timeout applies"), e.getMessage());
    assertEquals(CoordinatorState.FAILED, c.state());
    assertThrows(FatalTwoPhaseException.class, () -> c.output(p).write("x"));
    c.close();
  }

  @Test
  void timeoutWarningDuringCommit() {
    InMemoryParticipant<String> p = newParticipant();
    CoordinatorConfig config = CoordinatorConfig.custom().clock(clock)
        .transactionTimeout(Duration.ofMillis(3)).enableTransactionTimeoutWarnings(0.5).build();
    try (EmbeddedCoordinator c = builder(p).config(config).build()) {
      c.output(p).write("42");
      c.snapshot(1);
      clock.set(1); // age 1 ms < 1.5 ms
      c.notifyCheckpointComplete(1);
      assertEquals(List.of(), listener.warnings);
      c.output(p).write("43");
      c.snapshot(2);
      clock.set(3); // checkpoint 2's transaction was begun inside snapshot(1), at 0: age 3
      c.notifyCheckpointComplete(2);
      assertEquals(1, listener.warnings.size(), listener.events.toString());
      assertEquals(2, listener.warnings.get(0).checkpointId());
      assertEquals(Duration.ofMillis(3), listener.warnings.get(0).timeout());
    }
  }

  @Test
  void timeoutWarningDuringRecovery() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    c.output(p).write("42");
    byte[] state = c.snapshot(1);
    c.close();
    clock.set(2);
    CoordinatorConfig config = CoordinatorConfig.custom().clock(clock)
        .transactionTimeout(Duration.ofMillis(3)).enableTransactionTimeoutWarnings(0.5).build();
    try (EmbeddedCoordinator again = builder(newParticipant()).config(config).restoreFrom(state).build()) {
      assertEquals(1, listener.warnings.size());
      assertEquals(Duration.ofMillis(2), listener.warnings.get(0).age());
      assertEquals(List.of("42"), resource.committedRecords());
    }
  }

  @Test
  void noEmptyTransactionAfterFinish() {
    InMemoryParticipant<String> p = newParticipant();
    try (EmbeddedCoordinator c = builder(p).build()) {
      Output<String> out = c.output(p);
      out.write("42");
      c.finish();
      assertThrows(IllegalStateTransitionException.class, () -> out.write("43"));
      c.snapshot(1);
      c.notifyCheckpointComplete(1);
      c.snapshot(2); // nothing open: no transaction begun, none pre-committed
      c.notifyCheckpointComplete(2);
      long begins = resource.history().stream().filter(h -> h.startsWith("begin ")).count();
      assertEquals(1, begins, resource.history().toString());
      assertEquals(List.of("42"), resource.committedRecords());
      assertEquals(CoordinatorState.FINISHED, c.state());
    }
  }

  @Test
  void restoreFromStateTakenAfterFinish() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    c.output(p).write("42");
    c.finish();
    byte[] state = c.snapshot(1);
    c.close();
    try (EmbeddedCoordinator again = builder(newParticipant()).restoreFrom(state).build()) {
      assertEquals(List.of("42"), resource.committedRecords());
      assertEquals(CoordinatorState.RUNNING, again.state());
      assertEquals(1, again.lastCheckpointId());
    }
  }

  @Test
  void abortedCheckpointIsCommittedWithTheNextCompletedOne() {
    InMemoryParticipant<String> p = newParticipant();
    try (EmbeddedCoordinator c = builder(p).build()) {
      c.output(p).write("a");
      c.snapshot(1);
      c.notifyCheckpointAborted(1);
      c.output(p).write("b");
      c.snapshot(2);
      c.notifyCheckpointComplete(2);
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }
  }

  @Test
  void commitFailureKeepsTheCheckpointPendingForTheNextNotification() {
    InMemoryParticipant<String> p = newParticipant();
    try (EmbeddedCoordinator c = builder(p).build()) {
      c.output(p).write("a");
      c.snapshot(1);
      p.failNextCommits(1, new IOException("broker away"));
      assertThrows(RetriableTwoPhaseException.class, () -> c.notifyCheckpointComplete(1));
      assertEquals(1, c.pendingCheckpoints());
      c.output(p).write("b");
      c.snapshot(2);
      c.notifyCheckpointComplete(2);
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }
  }

  @Test
  void snapshotIdsMustGrowAndStateNamesItsCoordinator() {
    InMemoryParticipant<String> p = newParticipant();
    byte[] state;
    try (EmbeddedCoordinator c = builder(p).build()) {
      state = c.snapshot(5);
      assertThrows(IllegalArgumentException.class, () -> c.snapshot(5));
      assertArrayEquals(state, state.clone());
    }
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> EmbeddedCoordinator.builder("other").participant("memory", newParticipant()).restoreFrom(state).build());
    assertTrue(e.getMessage().contains("'sink'"), e.getMessage());
  }

  @Test
  void ownerEpochGrowsAcrossRestores() {
    InMemoryParticipant<String> p = newParticipant();
    EmbeddedCoordinator c = builder(p).build();
    byte[] state = c.snapshot(1);
    long first = c.ownerEpoch();
    c.close();
    try (EmbeddedCoordinator again = builder(newParticipant()).restoreFrom(state).build()) {
      assertTrue(again.ownerEpoch() > first, again.ownerEpoch() + " > " + first);
    }
  }

  @Test
  void anExplicitOwnerEpochMustBeAboveTheRestoredOne() {
    EmbeddedCoordinator c = builder(newParticipant()).ownerEpoch(5).build();
    assertEquals(5, c.ownerEpoch());
    byte[] state = c.snapshot(1);
    c.close();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> builder(newParticipant()).ownerEpoch(5).restoreFrom(state).build());
    assertTrue(e.getMessage().contains("not above the epoch of the restored state, 5"), e.getMessage());
    try (EmbeddedCoordinator again = builder(newParticipant()).ownerEpoch(6).restoreFrom(state).build()) {
      assertEquals(6, again.ownerEpoch());
    }
  }
}
