package dev.twophase.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FencedException;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.testing.InMemoryResource.TransactionState;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class InMemoryParticipantTest {

  private static final String COORDINATOR = "coord";
  private static final String PARTICIPANT = "mem";

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryParticipant<String> participant = new InMemoryParticipant<>(resource);
  private long sequence;

  private static TransactionContext<Void> context(String coordinator, long epoch, long sequence) {
    return TestContexts.transaction(coordinator, PARTICIPANT, epoch, 1, sequence);
  }

  private static void write(InMemoryParticipant<String> p, InMemoryTransaction txn, String record) throws Exception {
    p.writerFor(txn).write(record);
  }

  private InMemoryTransaction begin(InMemoryParticipant<String> p, long epoch) throws Exception {
    return p.beginTransaction(context(COORDINATOR, epoch, sequence++));
  }

  private InMemoryTransaction begin() throws Exception {
    return begin(participant, 1);
  }

  private InMemoryTransaction prepared(String... records) throws Exception {
    InMemoryTransaction txn = begin();
    for (String record : records) {
      write(participant, txn, record);
    }
    participant.preCommit(txn);
    return txn;
  }

  private static RecoveryContext<InMemoryTransaction, Void> recovery(
      String coordinator, long epoch, List<InMemoryTransaction> handled) {
    return TestContexts.recovery(coordinator, PARTICIPANT, epoch, handled, 0);
  }

  @Nested
  class StateTransitions {

    @Test
    void beginCreatesAnOpenTransactionNamedByTheContext() throws Exception {
      InMemoryTransaction txn = begin();
      assertEquals("coord-mem-testlog0-1-0", txn.name());
      assertEquals(Optional.of(TransactionState.OPEN), resource.state(txn.name()));
      assertEquals(Set.of(txn.name()), resource.openTransactions());
      assertEquals(List.of("begin coord-mem-testlog0-1-0"), resource.history());
    }

    @Test
    void writesAreBufferedAndInvisibleUntilCommit() throws Exception {
      InMemoryTransaction txn = begin();
      write(participant, txn, "a");
      write(participant, txn, "b");
      assertEquals(List.of("a", "b"), resource.records(txn.name()));
      participant.preCommit(txn);
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      assertEquals(List.of(), resource.committedRecords());

      assertEquals(CommitOutcome.COMMITTED, participant.commit(txn));
      assertEquals(List.of("a", "b"), resource.committedRecords());
      assertEquals(Optional.of(TransactionState.COMMITTED), resource.state(txn.name()));
      assertEquals(Set.of(), resource.openTransactions());
      assertEquals(
          List.of(
              "begin coord-mem-testlog0-1-0",
              "write coord-mem-testlog0-1-0 a",
              "write coord-mem-testlog0-1-0 b",
              "preCommit coord-mem-testlog0-1-0",
              "commit coord-mem-testlog0-1-0"),
          resource.history());
    }

    @Test
    void transactionsCommitInCallOrder() throws Exception {
      InMemoryTransaction first = prepared("1", "2");
      InMemoryTransaction second = prepared("3");
      InMemoryTransaction third = prepared("4", "5");
      participant.commit(first);
      participant.commit(second);
      participant.commit(third);
      assertEquals(List.of("1", "2", "3", "4", "5"), resource.committedRecords());
    }

    @Test
    void emptyTransactionCommits() throws Exception {
      InMemoryTransaction txn = prepared();
      assertEquals(CommitOutcome.COMMITTED, participant.commit(txn));
      assertEquals(List.of(), resource.committedRecords());
    }

    @Test
    void preCommitTwiceIsANoOp() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.preCommit(txn);
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      assertTrue(resource.history().contains("preCommit " + txn.name() + " (no-op: already PREPARED)"));
    }

    @Test
    void writeAfterPreCommitFails() throws Exception {
      InMemoryTransaction txn = prepared("a");
      assertThrows(IllegalStateException.class, () -> write(participant, txn, "b"));
      participant.commit(txn);
      assertEquals(List.of("a"), resource.committedRecords());
    }

    @Test
    void preCommitOfUnknownOrFinishedFails() throws Exception {
      assertThrows(
          IllegalStateException.class,
          () -> participant.preCommit(new InMemoryTransaction("nope", 0)));
      InMemoryTransaction txn = begin();
      participant.abort(txn);
      assertThrows(IllegalStateException.class, () -> participant.preCommit(txn));
    }

    @Test
    void duplicateNameIsRefused() throws Exception {
      participant.beginTransaction(context(COORDINATOR, 1, 0));
      assertThrows(
          IllegalStateException.class, () -> participant.beginTransaction(context(COORDINATOR, 1, 0)));
    }

    @Test
    void nullRecordFailsClearlyAndTransactionStaysUsable() throws Exception {
      InMemoryTransaction txn = begin();
      write(participant, txn, "a");
      NullPointerException e =
          assertThrows(NullPointerException.class, () -> write(participant, txn, null));
      assertTrue(e.getMessage().contains("record must not be null"), e.getMessage());
      write(participant, txn, "b");
      participant.preCommit(txn);
      participant.commit(txn);
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }

    @Test
    void closedParticipantRefusesCalls() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.close();
      participant.close();
      assertThrows(IllegalStateException.class, () -> participant.commit(txn));
      assertThrows(IllegalStateException.class, () -> begin());
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
    }
  }

  @Nested
  class Outcomes {

    @Test
    void secondCommitReportsAlreadyCommitted() throws Exception {
      InMemoryTransaction txn = prepared("a");
      assertEquals(CommitOutcome.COMMITTED, participant.commit(txn));
      assertEquals(CommitOutcome.ALREADY_COMMITTED, participant.commit(txn));
      assertEquals(CommitOutcome.ALREADY_COMMITTED, participant.recoverAndCommit(txn));
      assertEquals(List.of("a"), resource.committedRecords());
      assertTrue(resource.history().contains("commit " + txn.name() + " (already committed)"));
    }

    @Test
    void commitOfAbortedOrUnknownIsLost() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.abort(txn);
      assertEquals(CommitOutcome.LOST, participant.commit(txn));
      assertEquals(CommitOutcome.LOST, participant.recoverAndCommit(new InMemoryTransaction("x", 0)));
      assertEquals(List.of(), resource.committedRecords());
    }

    @Test
    void commitOfExpiredIsLost() throws Exception {
      InMemoryTransaction txn = prepared("a");
      assertTrue(resource.expire(txn.name()));
      assertTrue(resource.isExpired(txn.name()));
      assertFalse(resource.expire(txn.name()));
      assertEquals(CommitOutcome.LOST, participant.commit(txn));
      assertEquals(List.of(), resource.committedRecords());
      assertTrue(resource.history().contains("commit " + txn.name() + " (lost: ABORTED, expired)"));
    }

    @Test
    void commitOfOpenTransactionIsAProtocolViolation() throws Exception {
      InMemoryTransaction txn = begin();
      write(participant, txn, "a");
      assertThrows(IllegalStateException.class, () -> participant.commit(txn));
      assertThrows(IllegalStateException.class, () -> participant.recoverAndCommit(txn));
      assertEquals(Optional.of(TransactionState.OPEN), resource.state(txn.name()));
      assertEquals(List.of(), resource.committedRecords());
    }

    @Test
    void abortOfOpenAndPreparedDiscardsRecords() throws Exception {
      InMemoryTransaction open = begin();
      write(participant, open, "a");
      InMemoryTransaction preparedTxn = prepared("b");
      participant.abort(open);
      participant.abort(preparedTxn);
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(open.name()));
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(preparedTxn.name()));
      assertEquals(Set.of(), resource.openTransactions());
      assertEquals(List.of(), resource.committedRecords());
    }

    @Test
    void abortIsIdempotentAndToleratesUnknown() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.abort(txn);
      participant.abort(txn);
      participant.abort(new InMemoryTransaction("never-begun", 0));
      assertTrue(resource.history().contains("abort never-begun (no-op: unknown)"));
      assertTrue(resource.history().contains("abort " + txn.name() + " (no-op: ABORTED)"));
    }

    @Test
    void plainAbortOfCommittedIsAProtocolViolation() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.commit(txn);
      assertThrows(IllegalStateException.class, () -> participant.abort(txn));
      assertEquals(List.of("a"), resource.committedRecords());
    }

    @Test
    void recoverAndAbortOfCommittedDoesNotUncommit() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.commit(txn);
      assertEquals(AbortOutcome.COMMITTED, new InMemoryParticipant<>(resource).recoverAndAbort(txn));
      assertEquals(Optional.of(TransactionState.COMMITTED), resource.state(txn.name()));
      assertEquals(List.of("a"), resource.committedRecords());
      assertTrue(resource.history().contains("recoverAndAbort " + txn.name() + " (no-op: COMMITTED)"));
    }

    @Test
    void recoverAndAbortOfUnknownIsANoOp() throws Exception {
      assertEquals(AbortOutcome.NOT_FOUND,
          new InMemoryParticipant<>(resource).recoverAndAbort(new InMemoryTransaction("ghost", 0)));
      assertEquals(List.of("recoverAndAbort ghost (no-op: unknown)"), resource.history());
    }
  }

  @Nested
  class Recovery {

    @Test
    void newInstanceRecoversThroughTheCodec() throws Exception {
      InMemoryTransaction txn = prepared("a", "b");
      Codec<InMemoryTransaction> codec = participant.transactionCodec();
      byte[] bytes = codec.encode(txn);
      InMemoryParticipant<String> restarted = new InMemoryParticipant<>(resource);
      InMemoryTransaction decoded = restarted.transactionCodec().decode(bytes, codec.version());
      assertEquals(txn, decoded);
      assertEquals(CommitOutcome.COMMITTED, restarted.recoverAndCommit(decoded));
      assertEquals(CommitOutcome.ALREADY_COMMITTED, restarted.recoverAndCommit(decoded));
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }

    @Test
    void codecRejectsUnknownVersion() throws Exception {
      Codec<InMemoryTransaction> codec = participant.transactionCodec();
      byte[] bytes = codec.encode(new InMemoryTransaction("t", 5));
      assertThrows(Exception.class, () -> codec.decode(bytes, codec.version() + 1));
    }

    @Test
    void finishRecoveringAbortsLingeringTransactionsOfThisOwnerOnly() throws Exception {
      InMemoryTransaction handled = prepared("handled");
      InMemoryTransaction lingeringPrepared = prepared("x");
      InMemoryTransaction lingeringOpen = begin();
      write(participant, lingeringOpen, "y");
      InMemoryTransaction otherCoordinator =
          participant.beginTransaction(context("other", 1, 0));
      write(participant, otherCoordinator, "z");
      participant.preCommit(otherCoordinator);
      InMemoryTransaction otherParticipant =
          participant.beginTransaction(
              TestContexts.transaction(COORDINATOR, "mem2", 1, 1, 0));

      InMemoryParticipant<String> restarted = new InMemoryParticipant<>(resource);
      assertEquals(CommitOutcome.COMMITTED, restarted.recoverAndCommit(handled));
      restarted.finishRecoveringContext(recovery(COORDINATOR, 2, List.of(handled)));

      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(lingeringPrepared.name()));
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(lingeringOpen.name()));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(otherCoordinator.name()));
      assertEquals(Optional.of(TransactionState.OPEN), resource.state(otherParticipant.name()));
      assertEquals(CommitOutcome.LOST, restarted.recoverAndCommit(lingeringPrepared));
      assertEquals(List.of("handled"), resource.committedRecords());
      assertTrue(
          resource.history().contains(
              "finishRecoveringContext coord mem aborted ["
                  + lingeringPrepared.name() + ", " + lingeringOpen.name() + "]"),
          resource.history().toString());
    }

    @Test
    void finishRecoveringLeavesHandledInProgressTransactionsAlone() throws Exception {
      InMemoryTransaction txn = prepared("a");
      InMemoryParticipant<String> restarted = new InMemoryParticipant<>(resource);
      restarted.finishRecoveringContext(recovery(COORDINATOR, 2, List.of(txn)));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
    }
  }

  @Nested
  class Fencing {

    @Test
    void newerEpochFencesTheZombie() throws Exception {
      InMemoryTransaction txn = prepared("a");
      InMemoryParticipant<String> successor = new InMemoryParticipant<>(resource);
      successor.finishRecoveringContext(recovery(COORDINATOR, 2, List.of(txn)));
      assertEquals(2, resource.ownerEpoch(COORDINATOR, PARTICIPANT).getAsLong());

      assertThrows(FencedException.class, () -> participant.commit(txn));
      assertThrows(FencedException.class, () -> participant.abort(txn));
      assertThrows(FencedException.class, () -> begin(participant, 1));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      assertTrue(resource.history().contains("commit " + txn.name() + " (fenced: epoch 1 < 2)"));

      // The successor may still finish the old incarnation's transaction.
      assertEquals(CommitOutcome.COMMITTED, successor.recoverAndCommit(txn));
      assertEquals(List.of("a"), resource.committedRecords());
    }

    @Test
    void otherOwnersAreNotFenced() throws Exception {
      InMemoryTransaction txn = prepared("a");
      InMemoryParticipant<String> other = new InMemoryParticipant<>(resource);
      other.finishRecoveringContext(recovery("another", 5, List.of()));
      assertEquals(CommitOutcome.COMMITTED, participant.commit(txn));
    }

    @Test
    void fencingCanBeTurnedOff() throws Exception {
      InMemoryParticipant<String> lax = InMemoryParticipant.builder(resource).fencing(false).build();
      InMemoryTransaction txn = begin(lax, 1);
      write(lax, txn, "a");
      lax.preCommit(txn);
      new InMemoryParticipant<>(resource).finishRecoveringContext(recovery(COORDINATOR, 2, List.of(txn)));
      assertEquals(CommitOutcome.COMMITTED, lax.commit(txn));
    }
  }

  @Nested
  class FaultInjection {

    @Test
    void failNextBeginThrowsOnceAndCreatesNothing() throws Exception {
      IllegalStateException boom = new IllegalStateException("boom");
      participant.failNextBegin(boom);
      assertSame(boom, assertThrows(IllegalStateException.class, () -> begin()));
      assertEquals(Set.of(), resource.transactionNames());
      begin();
      assertEquals(1, resource.transactionNames().size());
    }

    @Test
    void failNextWriteLeavesTheRecordOut() throws Exception {
      InMemoryTransaction txn = begin();
      participant.failNextWrite(new IOException("disk"));
      assertThrows(IOException.class, () -> write(participant, txn, "lost"));
      write(participant, txn, "kept");
      participant.preCommit(txn);
      participant.commit(txn);
      assertEquals(List.of("kept"), resource.committedRecords());
    }

    @Test
    void failNextPreCommitKeepsTheTransactionOpenAndAbortable() throws Exception {
      InMemoryTransaction txn = begin();
      write(participant, txn, "a");
      participant.failNextPreCommit(new IOException("flush"));
      assertThrows(IOException.class, () -> participant.preCommit(txn));
      assertEquals(Optional.of(TransactionState.OPEN), resource.state(txn.name()));
      participant.abort(txn);
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(txn.name()));
    }

    @Test
    void failNextCommitsCountsCommitAndRecoverAndCommit() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.failNextCommits(2, new IOException("away"));
      assertThrows(IOException.class, () -> participant.commit(txn));
      assertThrows(IOException.class, () -> participant.recoverAndCommit(txn));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      assertEquals(CommitOutcome.COMMITTED, participant.commit(txn));
      assertEquals(List.of("a"), resource.committedRecords());
      assertTrue(resource.history().contains("commit " + txn.name() + " (injected failure: away)"));
    }

    @Test
    void failNextCommitAfterApplyingCommitsThenThrows() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.failNextCommitAfterApplying(new IOException("ack lost"));
      assertThrows(IOException.class, () -> participant.commit(txn));
      assertEquals(List.of("a"), resource.committedRecords());
      assertEquals(CommitOutcome.ALREADY_COMMITTED, participant.commit(txn));
    }

    @Test
    void failNextAbortCoversRecoverAndAbort() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.failNextAbort(new IOException("away"));
      assertThrows(IOException.class, () -> participant.recoverAndAbort(txn));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      participant.recoverAndAbort(txn);
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(txn.name()));
    }

    @Test
    void failNextFinishRecoveringAbortsNothing() throws Exception {
      InMemoryTransaction txn = prepared("a");
      InMemoryParticipant<String> restarted = new InMemoryParticipant<>(resource);
      restarted.failNextFinishRecoveringContext(new IOException("away"));
      assertThrows(
          IOException.class, () -> restarted.finishRecoveringContext(recovery(COORDINATOR, 2, List.of())));
      assertEquals(Optional.of(TransactionState.PREPARED), resource.state(txn.name()));
      restarted.finishRecoveringContext(recovery(COORDINATOR, 2, List.of()));
      assertEquals(Optional.of(TransactionState.ABORTED), resource.state(txn.name()));
    }

    @Test
    void loseOnNextCommitReportsLost() throws Exception {
      InMemoryTransaction txn = prepared("a");
      participant.loseOnNextCommit();
      assertEquals(CommitOutcome.LOST, participant.commit(txn));
      assertTrue(resource.isExpired(txn.name()));
      assertEquals(List.of(), resource.committedRecords());
    }

    @Test
    void invalidTimesIsRefused() {
      assertThrows(
          IllegalArgumentException.class, () -> participant.failNextCommits(0, new IOException()));
    }
  }

  @Nested
  class Timeouts {

    private final AtomicLong now = new AtomicLong(1_000);
    private final Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return Instant.ofEpochMilli(now.get());
          }
        };

    @Test
    void noTimeoutByDefault() {
      assertEquals(Optional.empty(), participant.transactionTimeout());
    }

    @Test
    void timeoutIsReportedAndEnforced() throws Exception {
      InMemoryParticipant<String> timed =
          InMemoryParticipant.builder(resource)
              .transactionTimeout(Duration.ofSeconds(10))
              .clock(clock)
              .build();
      assertEquals(Optional.of(Duration.ofSeconds(10)), timed.transactionTimeout());

      InMemoryTransaction young = begin(timed, 1);
      assertEquals(1_000, young.begunAtMillis());
      write(timed, young, "a");
      timed.preCommit(young);
      now.addAndGet(10_000); // exactly the timeout: still alive
      assertEquals(CommitOutcome.COMMITTED, timed.commit(young));

      InMemoryTransaction old = begin(timed, 1);
      write(timed, old, "b");
      timed.preCommit(old);
      now.addAndGet(10_001);
      assertEquals(CommitOutcome.LOST, timed.commit(old));
      assertTrue(resource.isExpired(old.name()));

      InMemoryTransaction stale = begin(timed, 1);
      now.addAndGet(20_000);
      assertThrows(IllegalStateException.class, () -> write(timed, stale, "c"));
      assertEquals(List.of("a"), resource.committedRecords());
    }

    @Test
    void nonPositiveTimeoutIsRefused() {
      assertThrows(
          IllegalArgumentException.class,
          () -> InMemoryParticipant.builder(resource).transactionTimeout(Duration.ZERO));
    }
  }
}
