package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.testing.TestContexts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite every {@link Participant} implementation should pass, in the spirit of
 * Flink's {@code SinkTestSuiteBase}. Extend it in a test class, implement the three abstract
 * methods, and JUnit runs every check below against your participant:
 *
 * <pre>{@code
 * class MyParticipantConformanceTest
 *     extends ParticipantConformanceSuite<MyHandle, Void, String> {
 *   private MyResource resource;
 *
 *   @Override protected void setUpResource() { resource = MyResource.createFresh(); }
 *   @Override protected void tearDownResource() { resource.drop(); }
 *   @Override protected Participant<MyHandle, Void> newParticipant() { return new MyParticipant(resource); }
 *   @Override protected List<String> committedRecords() { return resource.readCommitted(); }
 *   @Override protected String record(int i) { return "record-" + i; }
 * }
 * }</pre>
 *
 * <h2>What the suite assumes</h2>
 * <ul>
 *   <li>{@link #newParticipant()} returns a new instance on the same external resource each time;
 *       the suite treats every instance as a separate process, and a new one after {@link
 *       #crash} as the process restarted after a crash. Handles pass from one instance to the next
 *       only through the participant's {@link Participant#transactionCodec() codec}, as they do
 *       through the coordinator's state log.
 *   <li>{@link #committedRecords()} reads everything committed to the resource, the way a
 *       read_committed consumer would, in commit order (and write order within a transaction).
 *       Records must have a meaningful {@code equals}.
 *   <li>Each test uses its own coordinator id (random), so tests don't see each other's
 *       transactions. The suite reads {@link #committedRecords()} once right after {@link
 *       #setUpResource()} and checks only what was added after that, so the resource may hold
 *       older data, but nothing else may commit to it while a test runs.
 *   <li>Calls follow the coordinator's order: on every start, an instance first commits and aborts
 *       the recovered handles, then gets {@code finishRecoveringContext}, then begins transactions.
 *       Owner epochs grow with every start of a coordinator id.
 * </ul>
 *
 * <h2>Life cycle</h2>
 * The suite's {@code @BeforeEach} calls {@link #setUpResource()} and its {@code @AfterEach} aborts
 * what the test left open, closes the live instances and calls {@link #tearDownResource()}. Create
 * or clean the resource in {@code setUpResource()}, not in a {@code @BeforeEach} of your own: JUnit
 * runs a subclass's {@code @BeforeEach} methods after the suite's, when the suite has already read
 * the resource. {@code @BeforeAll}/{@code @AfterAll} in the subclass are fine for expensive things
 * such as a container.
 *
 * <h2>Skipped tests</h2>
 * Only {@link #lostTransactionIsReportedAsLost()} may be skipped, when the resource cannot expire a
 * transaction on demand ({@link #lostTransactionSupported()}). Checks that need {@link
 * #isInProgress} are left out of a test (not skipped) when {@link #inProgressCheckSupported()} is
 * false; implement it if you can, it makes the suite notice aborts that do nothing.
 *
 * @param <TXN> the participant's transaction handle
 * @param <CONTEXT> the participant's user context ({@link Void} if none)
 * @param <IN> record type
 */
public abstract class ParticipantConformanceSuite<TXN, CONTEXT, IN> {

  // ------------------------------------------------------------------------- for subclasses

  /**
   * A new participant instance on the same external resource. Every call stands for a new process:
   * it must not share in-memory state (buffers, open transactions) with earlier instances.
   */
  protected abstract Participant<TXN, CONTEXT> newParticipant() throws Exception;

  /**
   * Everything committed to the resource so far, as a reader with read_committed isolation sees
   * it: in commit order, and in write order within a transaction.
   */
  protected abstract List<IN> committedRecords() throws Exception;

  /**
   * The i-th test record. Must be deterministic, and distinct for distinct {@code i} (the suite
   * uses i = 0, 1, 2, ... within a test).
   */
  protected abstract IN record(int i);

  /**
   * Writes {@code record} into {@code transaction}. The default uses the {@link RecordWriter} the
   * participant's {@link Writable#writerFor} returned for the transaction (the suite asks for it
   * once, right after {@code beginTransaction}, as the coordinator does); participants that expose
   * their resource otherwise must override this.
   */
  protected void write(Participant<TXN, CONTEXT> participant, TXN transaction, IN record)
      throws Exception {
    RecordWriter<IN> writer = writers.get(transaction);
    if (writer == null) {
      throw new UnsupportedOperationException(
          participant.getClass().getName()
              + " does not implement Writable: override ParticipantConformanceSuite.write(...) to"
              + " say how a record goes into a transaction");
    }
    writer.write(record);
  }

  /**
   * Creates or cleans the external resource before each test (see the class comment for why here
   * rather than in a {@code @BeforeEach} of your own). Default: nothing.
   */
  protected void setUpResource() throws Exception {}

  /** Releases the external resource after each test, after the participants were closed. */
  protected void tearDownResource() throws Exception {}

  /**
   * Simulates the death of the process that owns {@code participant}, without letting it abort or
   * close anything: the suite never uses the instance again. Override to release what the
   * operating system would release for a killed process (close a JDBC connection without
   * committing, close a producer without aborting). Default: nothing (the instance is abandoned).
   */
  protected void crash(Participant<TXN, CONTEXT> participant) throws Exception {}

  /**
   * Whether {@link #makeLost} can make the resource expire a transaction. Default: false, and
   * {@link #lostTransactionIsReportedAsLost()} is skipped.
   */
  protected boolean lostTransactionSupported() {
    return false;
  }

  /**
   * Makes the resource expire (abort on its own) the pre-committed {@code transaction}, as a
   * transaction timeout would. Called only if {@link #lostTransactionSupported()}.
   */
  protected void makeLost(TXN transaction) throws Exception {
    throw new UnsupportedOperationException("override makeLost together with lostTransactionSupported");
  }

  /**
   * Whether {@link #isInProgress} can look into the resource. Default: false, and the checks that
   * need it are left out.
   */
  protected boolean inProgressCheckSupported() {
    return false;
  }

  /**
   * Whether the resource still holds {@code transaction} open or prepared: a Kafka transaction not
   * yet ended, a row in {@code pg_prepared_xacts}, a temporary file. Called only if {@link
   * #inProgressCheckSupported()}.
   */
  protected boolean isInProgress(TXN transaction) throws Exception {
    throw new UnsupportedOperationException(
        "override isInProgress together with inProgressCheckSupported");
  }

  /**
   * A handle for a transaction the resource never saw, named after {@code context}, if the handle
   * type allows building one without beginning a transaction. Default: empty (the suite then uses
   * only a handle that was begun and aborted).
   */
  protected Optional<TXN> handleNeverBegun(TransactionContext<CONTEXT> context) throws Exception {
    return Optional.empty();
  }

  /** The participant name the suite passes in contexts. Default: {@code "participant"}. */
  protected String participantName() {
    return "participant";
  }

  /**
   * The start of the coordinator ids the suite uses; a random suffix makes each test's id unique.
   * Default: {@code "conformance"}.
   */
  protected String coordinatorIdPrefix() {
    return "conformance";
  }

  // ------------------------------------------------------------------------- life cycle

  private record Logged(byte[] bytes, int version) {}

  /** One participant instance: one process of one coordinator. */
  private final class Incarnation {
    final Participant<TXN, CONTEXT> participant;
    final String coordinatorId;
    final String participantName;
    final long epoch;
    final Optional<CONTEXT> userContext;
    final List<TXN> unfinished = new ArrayList<>();
    long sequence;
    boolean crashed;

    Incarnation(
        Participant<TXN, CONTEXT> participant,
        String coordinatorId,
        String participantName,
        long epoch,
        Optional<CONTEXT> userContext) {
      this.participant = participant;
      this.coordinatorId = coordinatorId;
      this.participantName = participantName;
      this.epoch = epoch;
      this.userContext = userContext;
    }
  }

  private String coordinatorId;
  /** The writer of each open transaction of a Writable participant, by identity of the handle. */
  private final Map<TXN, RecordWriter<IN>> writers = new IdentityHashMap<>();
  private List<IN> baseline;
  private int nextRecord;
  private long nextCheckpoint;
  private final Map<String, Long> epochs = new HashMap<>();
  private final Map<String, Logged> contexts = new HashMap<>();
  private final List<Incarnation> incarnations = new ArrayList<>();

  /** Prepares a test: a fresh coordinator id, {@link #setUpResource()}, the baseline read. */
  @BeforeEach
  protected final void setUpConformanceTest() throws Exception {
    coordinatorId = coordinatorIdPrefix() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    nextRecord = 0;
    nextCheckpoint = 1;
    epochs.clear();
    contexts.clear();
    incarnations.clear();
    writers.clear();
    setUpResource();
    baseline = List.copyOf(committedRecords());
  }

  /**
   * Aborts what the test left open in live instances (failures ignored), closes them, then calls
   * {@link #tearDownResource()}. A failing {@code close()} fails the test.
   */
  @AfterEach
  protected final void tearDownConformanceTest() throws Exception {
    Exception failure = null;
    try {
      for (Incarnation incarnation : incarnations) {
        if (incarnation.crashed) {
          continue;
        }
        for (TXN transaction : incarnation.unfinished) {
          try {
            incarnation.participant.abort(transaction);
          } catch (Exception ignored) {
            // best effort: the test is over
          }
        }
        try {
          incarnation.participant.close();
        } catch (Exception e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    } finally {
      incarnations.clear();
      tearDownResource();
    }
    if (failure != null) {
      throw failure;
    }
  }

  // ------------------------------------------------------------------------- the tests

  /** begin, write, preCommit show nothing; commit shows the records once, in order: COMMITTED. */
  @Test
  public void preCommittedRecordsStayInvisibleUntilCommit() throws Exception {
    Incarnation process = start(coordinatorId);
    TXN txn = begin(process);
    List<IN> records = write(process, txn, 3);
    assertVisible(List.of(), "records of an open transaction are visible");
    txn = preCommit(process, txn);
    assertVisible(List.of(), "records of a pre-committed transaction are visible before commit");
    assertInProgress(txn, true, "after preCommit");

    assertEquals(CommitOutcome.COMMITTED, commit(process, txn), "outcome of the first commit");
    assertVisible(records, "committed records are not visible exactly once, in write order");
    assertInProgress(txn, false, "after commit");
  }

  /** An open transaction that is aborted never shows, and the next transaction is unaffected. */
  @Test
  public void abortBeforePreCommitDiscardsRecords() throws Exception {
    abortDiscardsRecords(false);
  }

  /** A pre-committed transaction that is aborted never shows, even if commit is tried later. */
  @Test
  public void abortAfterPreCommitDiscardsRecords() throws Exception {
    abortDiscardsRecords(true);
  }

  private void abortDiscardsRecords(boolean preCommitted) throws Exception {
    Incarnation process = start(coordinatorId);
    TXN aborted = begin(process);
    write(process, aborted, 2);
    if (preCommitted) {
      aborted = preCommit(process, aborted);
    }
    abort(process, aborted);
    assertInProgress(aborted, false, "after abort");
    process.participant.abort(aborted); // must tolerate a transaction that is already gone
    assertVisible(List.of(), "records of an aborted transaction are visible");

    TXN next = begin(process);
    List<IN> records = write(process, next, 2);
    next = preCommit(process, next);
    if (preCommitted) { // commit is only ever called with a handle preCommit returned
      TXN gone = aborted;
      assertNotReportedCommitted(
          "commit of the aborted transaction", () -> process.participant.commit(gone));
    }
    assertEquals(CommitOutcome.COMMITTED, commit(process, next), "outcome of the next transaction");
    assertVisible(records, "only the records of the committed transaction may be visible");
  }

  /** commit twice: the second reports ALREADY_COMMITTED and the records show once. */
  @Test
  public void secondCommitReportsAlreadyCommitted() throws Exception {
    Incarnation process = start(coordinatorId);
    TXN txn = begin(process);
    List<IN> records = write(process, txn, 2);
    txn = preCommit(process, txn);
    assertEquals(CommitOutcome.COMMITTED, commit(process, txn), "outcome of the first commit");
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        process.participant.commit(txn),
        "a repeated commit must report ALREADY_COMMITTED, not COMMITTED twice");
    assertVisible(records, "records of a transaction committed twice must show exactly once");
  }

  /**
   * A pre-committed transaction is committed from a new process with the decoded handle alone;
   * repeating it, from the same and from yet another process, reports ALREADY_COMMITTED.
   */
  @Test
  public void recoverAndCommitFromNewProcess() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN txn = begin(first);
    List<IN> records = write(first, txn, 3);
    txn = preCommit(first, txn);
    Logged logged = log(first, txn);
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN restored = restore(second, logged);
    assertEquals(
        CommitOutcome.COMMITTED,
        second.participant.recoverAndCommit(restored),
        "recoverAndCommit of a pre-committed transaction from a new process");
    assertVisible(records, "recovered records must show exactly once, in write order");
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        second.participant.recoverAndCommit(restored),
        "a repeated recoverAndCommit in the same process");
    finishRecovery(second, List.of(restored));
    crash(second);

    Incarnation third = newProcess(coordinatorId);
    TXN again = restore(third, logged);
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        third.participant.recoverAndCommit(again),
        "recoverAndCommit repeated after another crash");
    finishRecovery(third, List.of(again));
    assertVisible(records, "records recovered twice must show exactly once");
  }

  /** Handles of two decided checkpoints recovered in creation order show in that order. */
  @Test
  public void recoverAndCommitKeepsCreationOrder() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN older = begin(first);
    List<IN> expected = new ArrayList<>(write(first, older, 2));
    older = preCommit(first, older);
    TXN newer = begin(first);
    expected.addAll(write(first, newer, 2));
    newer = preCommit(first, newer);
    Logged olderLogged = log(first, older);
    Logged newerLogged = log(first, newer);
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN olderRestored = restore(second, olderLogged);
    TXN newerRestored = restore(second, newerLogged);
    assertEquals(CommitOutcome.COMMITTED, second.participant.recoverAndCommit(olderRestored));
    assertEquals(CommitOutcome.COMMITTED, second.participant.recoverAndCommit(newerRestored));
    finishRecovery(second, List.of(olderRestored, newerRestored));
    assertVisible(expected, "recovered transactions must show in creation order");
  }

  /** recoverAndCommit of a transaction committed before the crash reports ALREADY_COMMITTED. */
  @Test
  public void recoverAndCommitOfCommittedHandleReportsAlreadyCommitted() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN txn = begin(first);
    List<IN> records = write(first, txn, 2);
    txn = preCommit(first, txn);
    assertEquals(CommitOutcome.COMMITTED, commit(first, txn));
    Logged logged = log(first, txn);
    crash(first); // after the commit, before the completion mark

    Incarnation second = newProcess(coordinatorId);
    TXN restored = restore(second, logged);
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        second.participant.recoverAndCommit(restored),
        "recoverAndCommit of a transaction that was committed before the crash");
    finishRecovery(second, List.of(restored));
    assertVisible(records, "records must show exactly once");
  }

  /** recoverAndAbort from a new process of a transaction that was still open: never visible. */
  @Test
  public void recoverAndAbortOfOpenTransaction() throws Exception {
    recoverAndAbortDiscards(false);
  }

  /** recoverAndAbort from a new process of a pre-committed transaction: never visible. */
  @Test
  public void recoverAndAbortOfPreCommittedTransaction() throws Exception {
    recoverAndAbortDiscards(true);
  }

  private void recoverAndAbortDiscards(boolean preCommitted) throws Exception {
    Incarnation first = start(coordinatorId);
    TXN txn = begin(first);
    // The coordinator logs the handle beginTransaction returned as "open": recovery aborts that one.
    Logged logged = log(first, txn);
    write(first, txn, 2);
    Logged committableLogged = preCommitted ? log(first, preCommit(first, txn)) : null;
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN restored = restore(second, logged);
    AbortOutcome outcome = second.participant.recoverAndAbort(restored);
    assertNotNull(outcome, "recoverAndAbort returned null");
    assertNotEquals(AbortOutcome.COMMITTED, outcome,
        "recoverAndAbort of a transaction that was never committed reported COMMITTED");
    if (preCommitted) {
      assertEquals(AbortOutcome.ABORTED, outcome,
          "recoverAndAbort of a pre-committed transaction must find and roll it back (ABORTED), "
              + "looking it up by its name: the logged handle is the one beginTransaction returned");
    }
    assertInProgress(restored, false, "after recoverAndAbort from a new process");
    assertEquals(AbortOutcome.NOT_FOUND, second.participant.recoverAndAbort(restored),
        "a repeated recoverAndAbort finds nothing left to roll back");
    if (preCommitted) {
      TXN committable = restore(second, committableLogged);
      assertNotReportedCommitted(
          "recoverAndCommit after recoverAndAbort", () -> second.participant.recoverAndCommit(committable));
    }
    finishRecovery(second, List.of(restored));
    assertVisible(List.of(), "records of a transaction aborted on recovery are visible");

    TXN next = begin(second);
    List<IN> records = write(second, next, 2);
    next = preCommit(second, next);
    assertEquals(CommitOutcome.COMMITTED, commit(second, next));
    assertVisible(records, "only the records of the new transaction may be visible");
  }

  /**
   * recoverAndAbort of a handle the resource does not know (never begun, or begun and aborted)
   * succeeds silently and leaves committed data alone.
   */
  @Test
  public void recoverAndAbortOfUnknownHandleIsHarmless() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN committed = begin(first);
    List<IN> records = write(first, committed, 2);
    committed = preCommit(first, committed);
    assertEquals(CommitOutcome.COMMITTED, commit(first, committed));
    TXN aborted = begin(first);
    Logged abortedLogged = log(first, aborted);
    write(first, aborted, 1);
    abort(first, aborted);
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    List<TXN> handled = new ArrayList<>();
    TXN restored = restore(second, abortedLogged);
    assertEquals(AbortOutcome.NOT_FOUND, second.participant.recoverAndAbort(restored),
        "recoverAndAbort of a transaction aborted before the crash finds nothing to roll back");
    handled.add(restored);
    Optional<TXN> neverBegun =
        handleNeverBegun(
            TestContexts.transaction(
                coordinatorId, participantName(), TestContexts.LOG_ID, second.epoch, nextCheckpoint, 999_999, null));
    if (neverBegun.isPresent()) {
      TXN ghost = restore(second, log(second, neverBegun.get()));
      assertEquals(AbortOutcome.NOT_FOUND, second.participant.recoverAndAbort(ghost),
          "recoverAndAbort of a transaction the resource never saw");
      assertEquals(AbortOutcome.NOT_FOUND, second.participant.recoverAndAbort(ghost),
          "recoverAndAbort, repeated, of a transaction the resource never saw");
      handled.add(ghost);
    }
    finishRecovery(second, handled);
    assertVisible(records, "recoverAndAbort of unknown handles changed committed data");
  }

  /**
   * recoverAndAbort of a transaction committed before the crash reports
   * {@link AbortOutcome#COMMITTED} and un-commits nothing. This is how the coordinator notices a
   * state log that lost a decision, so it gets the handle as the log holds an open transaction:
   * the one {@code beginTransaction} returned, logged before any write.
   */
  @Test
  public void recoverAndAbortOfCommittedHandleReportsCommitted() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN txn = begin(first);
    Logged logged = log(first, txn);
    List<IN> records = write(first, txn, 3);
    txn = preCommit(first, txn);
    assertEquals(CommitOutcome.COMMITTED, commit(first, txn));
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN restored = restore(second, logged);
    assertEquals(AbortOutcome.COMMITTED, second.participant.recoverAndAbort(restored),
        "recoverAndAbort of a committed transaction must report COMMITTED (proof that the log lost "
            + "a decision), looking the transaction up by its name");
    assertEquals(AbortOutcome.COMMITTED, second.participant.recoverAndAbort(restored),
        "a repeated recoverAndAbort of a committed transaction");
    assertVisible(records, "recoverAndAbort of a committed transaction changed its data");
    finishRecovery(second, List.of(restored));
    assertVisible(records, "committed records must show exactly once");
  }

  /**
   * finishRecoveringContext aborts this coordinator's transactions that the log does not know
   * about (open and pre-committed), and leaves another coordinator's transactions on the same
   * resource alone: one whose id is {@code <coordinatorId>-<participantName>}, and another
   * participant (named {@code <participantName>2}) of this same coordinator. A participant that
   * matches names on the coordinator id instead of
   * {@link dev.twophase.ParticipantContext#isOwnTransactionName(String)} takes their transactions.
   */
  @Test
  public void finishRecoveringAbortsLingeringTransactions() throws Exception {
    String otherCoordinator = coordinatorId + "-" + participantName();
    Incarnation other = start(otherCoordinator);
    TXN othersTxn = begin(other);
    List<IN> othersRecords = write(other, othersTxn, 2);
    othersTxn = preCommit(other, othersTxn);
    Incarnation sibling = start(coordinatorId, participantName() + "2");
    TXN siblingTxn = begin(sibling);
    List<IN> siblingRecords = write(sibling, siblingTxn, 2);
    siblingTxn = preCommit(sibling, siblingTxn);

    Incarnation first = start(coordinatorId);
    TXN lingeringPrepared = begin(first);
    write(first, lingeringPrepared, 2);
    lingeringPrepared = preCommit(first, lingeringPrepared);
    TXN lingeringOpen = begin(first);
    write(first, lingeringOpen, 2);
    Logged preparedLogged = log(first, lingeringPrepared);
    crash(first); // before the log append that would have named these transactions

    Incarnation second = newProcess(coordinatorId);
    finishRecovery(second, List.of());
    assertInProgress(lingeringPrepared, false, "lingering pre-committed transaction after recovery");
    assertInProgress(lingeringOpen, false, "lingering open transaction after recovery");
    assertInProgress(othersTxn, true, "another coordinator's transaction after recovery");
    assertInProgress(siblingTxn, true, "another participant's transaction after recovery");
    TXN restored = restore(second, preparedLogged);
    assertNotReportedCommitted(
        "recoverAndCommit of a lingering transaction aborted by finishRecoveringContext",
        () -> second.participant.recoverAndCommit(restored));
    assertVisible(List.of(), "records of lingering transactions are visible");

    assertEquals(
        CommitOutcome.COMMITTED,
        commit(other, othersTxn),
        "another coordinator's pre-committed transaction must survive this coordinator's recovery");
    assertVisible(othersRecords, "only the other coordinator's records may be visible");
    assertEquals(
        CommitOutcome.COMMITTED,
        commit(sibling, siblingTxn),
        "another participant's pre-committed transaction must survive this participant's recovery");
    List<IN> both = new ArrayList<>(othersRecords);
    both.addAll(siblingRecords);
    assertVisible(both, "only the other coordinator's and participant's records may be visible");
  }

  /**
   * The normal recovery: the decided handle is committed, the newly begun one aborted, both are
   * passed as handled, and new transactions work afterwards.
   */
  @Test
  public void recoveryCommitsDecidedAndAbortsNewlyBegun() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN decided = begin(first);
    List<IN> expected = new ArrayList<>(write(first, decided, 2));
    decided = preCommit(first, decided);
    TXN newlyBegun = begin(first);
    Logged decidedLogged = log(first, decided);
    Logged newlyBegunLogged = log(first, newlyBegun);
    write(first, newlyBegun, 2);
    crash(first); // after the log append, before the commit

    Incarnation second = newProcess(coordinatorId);
    TXN decidedRestored = restore(second, decidedLogged);
    TXN newlyBegunRestored = restore(second, newlyBegunLogged);
    assertEquals(CommitOutcome.COMMITTED, second.participant.recoverAndCommit(decidedRestored));
    assertNotEquals(AbortOutcome.COMMITTED, second.participant.recoverAndAbort(newlyBegunRestored),
        "recoverAndAbort of the newly begun transaction");
    finishRecovery(second, List.of(decidedRestored, newlyBegunRestored));
    assertVisible(expected, "after recovery only the decided transaction may be visible");
    assertInProgress(newlyBegunRestored, false, "the newly begun transaction after recovery");

    TXN next = begin(second);
    expected.addAll(write(second, next, 2));
    next = preCommit(second, next);
    assertEquals(CommitOutcome.COMMITTED, commit(second, next));
    assertVisible(expected, "records after recovery");
  }

  /**
   * Handles and the user context survive the codec: decode(encode(h)) equals h (or encodes to the
   * same bytes) and commits; an unknown version is refused.
   */
  @Test
  public void handleAndContextSurviveTheCodec() throws Exception {
    Incarnation process = start(coordinatorId);
    Codec<TXN> codec = process.participant.transactionCodec();
    TXN txn = begin(process);
    byte[] bytes = codec.encode(txn);
    assertNotNull(bytes, "Codec.encode returned null");
    TXN decoded = codec.decode(bytes, codec.version());
    assertNotNull(decoded, "Codec.decode returned null");
    assertTrue(
        txn.equals(decoded) || Arrays.equals(bytes, codec.encode(decoded)),
        "decode(encode(h)) neither equals h nor encodes to the same bytes: " + txn + " vs " + decoded);
    assertThrows(
        Exception.class,
        () -> codec.decode(bytes, codec.version() + 1),
        "decoding a version newer than the codec's must fail, not guess");

    List<IN> records = write(process, txn, 2);
    TXN committable = preCommit(process, txn);
    // The coordinator logs the handle preCommit returned, which may gather what the writes created
    // (a file participant's part files): commit through it as the log holds it.
    TXN logged = codec.decode(codec.encode(committable), codec.version());
    assertEquals(
        CommitOutcome.COMMITTED,
        process.participant.commit(logged),
        "commit through the decoded handle");
    process.unfinished.removeIf(t -> t == committable);
    assertVisible(records, "records committed through the decoded handle");

    if (process.userContext.isPresent()) {
      Codec<CONTEXT> contextCodec = process.participant.contextCodec();
      CONTEXT context = process.userContext.get();
      byte[] contextBytes = contextCodec.encode(context);
      CONTEXT contextDecoded = contextCodec.decode(contextBytes, contextCodec.version());
      assertTrue(
          context.equals(contextDecoded)
              || Arrays.equals(contextBytes, contextCodec.encode(contextDecoded)),
          "the user context does not survive its codec: " + context + " vs " + contextDecoded);
    }
  }

  /** A pre-committed transaction the resource expired is reported LOST, and nothing shows. */
  @Test
  public void lostTransactionIsReportedAsLost() throws Exception {
    assumeTrue(
        lostTransactionSupported(),
        "skipped: the resource cannot expire a transaction on demand; override"
            + " lostTransactionSupported() and makeLost(TXN) to run this test");
    Incarnation first = start(coordinatorId);
    TXN begun = begin(first);
    write(first, begun, 2);
    TXN txn = preCommit(first, begun);
    Logged logged = log(first, txn);
    makeLost(txn);
    assertEquals(
        CommitOutcome.LOST, first.participant.commit(txn), "commit of an expired transaction");
    assertVisible(List.of(), "records of an expired transaction are visible");
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN restored = restore(second, logged);
    assertEquals(
        CommitOutcome.LOST,
        second.participant.recoverAndCommit(restored),
        "recoverAndCommit of an expired transaction from a new process");
    finishRecovery(second, List.of(restored));
    assertVisible(List.of(), "records of an expired transaction are visible after recovery");
  }

  /**
   * Several transactions pending at once (each begun after the previous pre-commit, as the
   * coordinator does) commit in creation order, and their records show in that order.
   */
  @Test
  public void transactionsCommitInCreationOrder() throws Exception {
    Incarnation process = start(coordinatorId);
    List<TXN> transactions = new ArrayList<>();
    List<IN> expected = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TXN txn = begin(process);
      expected.addAll(write(process, txn, 3));
      transactions.add(preCommit(process, txn));
    }
    assertVisible(List.of(), "pre-committed transactions are visible before commit");
    List<IN> visibleSoFar = new ArrayList<>();
    for (int i = 0; i < transactions.size(); i++) {
      assertEquals(CommitOutcome.COMMITTED, commit(process, transactions.get(i)));
      visibleSoFar.addAll(expected.subList(3 * i, 3 * i + 3));
      assertVisible(visibleSoFar, "after committing transaction " + i + " of 3");
    }
  }

  /**
   * A transaction without records pre-commits and commits (COMMITTED); recovering it from a new
   * process, committed or only decided, is never LOST.
   */
  @Test
  public void emptyTransactionCommits() throws Exception {
    Incarnation first = start(coordinatorId);
    TXN committed = preCommit(first, begin(first));
    assertEquals(CommitOutcome.COMMITTED, commit(first, committed), "commit of an empty transaction");
    TXN decided = preCommit(first, begin(first));
    Logged committedLogged = log(first, committed);
    Logged decidedLogged = log(first, decided);
    crash(first);

    Incarnation second = newProcess(coordinatorId);
    TXN committedRestored = restore(second, committedLogged);
    TXN decidedRestored = restore(second, decidedLogged);
    assertNotEquals(
        CommitOutcome.LOST,
        second.participant.recoverAndCommit(committedRestored),
        "recoverAndCommit of a committed empty transaction");
    assertNotEquals(
        CommitOutcome.LOST,
        second.participant.recoverAndCommit(decidedRestored),
        "recoverAndCommit of a decided empty transaction");
    finishRecovery(second, List.of(committedRestored, decidedRestored));
    assertVisible(List.of(), "an empty transaction made records visible");

    TXN next = begin(second);
    List<IN> records = write(second, next, 1);
    next = preCommit(second, next);
    assertEquals(CommitOutcome.COMMITTED, commit(second, next));
    assertVisible(records, "records after empty transactions");
  }

  /** The participant's declarations are sane: codecs with positive versions, a positive timeout. */
  @Test
  public void declarationsAreSane() throws Exception {
    Participant<TXN, CONTEXT> participant = start(coordinatorId).participant;
    assertNotNull(participant.transactionCodec(), "transactionCodec()");
    assertTrue(participant.transactionCodec().version() > 0, "transactionCodec().version() <= 0");
    assertNotNull(participant.contextCodec(), "contextCodec()");
    assertTrue(participant.contextCodec().version() > 0, "contextCodec().version() <= 0");
    Optional<Duration> timeout = participant.transactionTimeout();
    assertNotNull(timeout, "transactionTimeout() returned null instead of Optional.empty()");
    timeout.ifPresent(
        t -> assertFalse(t.isNegative() || t.isZero(), "transactionTimeout() not positive: " + t));
  }

  // ------------------------------------------------------------------------- helpers

  /** A new process that recovers nothing: first start, or a restart with an empty log. */
  private Incarnation start(String coordinator) throws Exception {
    return start(coordinator, participantName());
  }

  /** Like {@link #start(String)}, for another participant name of a coordinator. */
  private Incarnation start(String coordinator, String participant) throws Exception {
    Incarnation incarnation = newProcess(coordinator, participant);
    finishRecovery(incarnation, List.of());
    return incarnation;
  }

  /** A new process of {@code coordinator}: a new instance, the next epoch, the logged context. */
  private Incarnation newProcess(String coordinator) throws Exception {
    return newProcess(coordinator, participantName());
  }

  private Incarnation newProcess(String coordinator, String participantName) throws Exception {
    String owner = coordinator + '\u0000' + participantName;
    long epoch = epochs.merge(owner, 1L, Long::sum);
    Participant<TXN, CONTEXT> participant = newParticipant();
    assertNotNull(participant, "newParticipant() returned null");
    Optional<CONTEXT> userContext;
    Logged loggedContext = contexts.get(owner);
    if (loggedContext == null) {
      userContext =
          participant.initializeUserContext(
              TestContexts.participant(coordinator, participantName, TestContexts.LOG_ID, epoch));
      assertNotNull(userContext, "initializeUserContext returned null instead of Optional.empty()");
      if (userContext.isPresent()) {
        Codec<CONTEXT> codec = participant.contextCodec();
        contexts.put(owner, new Logged(codec.encode(userContext.get()), codec.version()));
      }
    } else {
      userContext =
          Optional.ofNullable(
              participant.contextCodec().decode(loggedContext.bytes(), loggedContext.version()));
    }
    Incarnation incarnation =
        new Incarnation(participant, coordinator, participantName, epoch, userContext);
    incarnations.add(incarnation);
    return incarnation;
  }

  private void finishRecovery(Incarnation incarnation, List<TXN> handled) throws Exception {
    incarnation.participant.finishRecoveringContext(
        TestContexts.recovery(
            incarnation.coordinatorId,
            incarnation.participantName,
            TestContexts.LOG_ID,
            incarnation.epoch,
            handled,
            incarnation.userContext.orElse(null),
            nextCheckpoint - 1));
  }

  private TXN begin(Incarnation incarnation) throws Exception {
    TransactionContext<CONTEXT> context =
        TestContexts.transaction(
            incarnation.coordinatorId,
            incarnation.participantName,
            TestContexts.LOG_ID,
            incarnation.epoch,
            nextCheckpoint++,
            incarnation.sequence++,
            incarnation.userContext.orElse(null));
    TXN transaction = incarnation.participant.beginTransaction(context);
    assertNotNull(transaction, "beginTransaction returned null");
    incarnation.unfinished.add(transaction);
    if (incarnation.participant instanceof Writable) {
      @SuppressWarnings("unchecked")
      Writable<IN, TXN> writable = (Writable<IN, TXN>) incarnation.participant;
      RecordWriter<IN> writer = writable.writerFor(transaction);
      assertNotNull(writer, "writerFor returned null");
      writers.put(transaction, writer);
    }
    return transaction;
  }

  private List<IN> write(Incarnation incarnation, TXN transaction, int count) throws Exception {
    List<IN> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      IN record = record(nextRecord++);
      write(incarnation.participant, transaction, record);
      records.add(record);
    }
    return records;
  }

  /** Pre-commits {@code transaction} and returns the handle to log and commit. */
  private TXN preCommit(Incarnation incarnation, TXN transaction) throws Exception {
    TXN committable = incarnation.participant.preCommit(transaction);
    assertNotNull(committable, "preCommit returned null instead of the handle to commit");
    writers.remove(transaction);
    int i = incarnation.unfinished.indexOf(transaction);
    if (i >= 0) {
      incarnation.unfinished.set(i, committable);
    }
    return committable;
  }

  private CommitOutcome commit(Incarnation incarnation, TXN transaction) throws Exception {
    CommitOutcome outcome = incarnation.participant.commit(transaction);
    assertNotNull(outcome, "commit returned null");
    incarnation.unfinished.removeIf(t -> t == transaction);
    return outcome;
  }

  private void abort(Incarnation incarnation, TXN transaction) throws Exception {
    incarnation.participant.abort(transaction);
    incarnation.unfinished.removeIf(t -> t == transaction);
  }

  /** The handle as the state log would hold it. */
  private Logged log(Incarnation incarnation, TXN transaction) throws Exception {
    Codec<TXN> codec = incarnation.participant.transactionCodec();
    byte[] bytes = codec.encode(transaction);
    assertNotNull(bytes, "transactionCodec().encode returned null");
    return new Logged(bytes.clone(), codec.version());
  }

  /** The handle as a new process reads it from the state log. */
  private TXN restore(Incarnation incarnation, Logged logged) throws Exception {
    TXN transaction =
        incarnation.participant.transactionCodec().decode(logged.bytes().clone(), logged.version());
    assertNotNull(transaction, "transactionCodec().decode returned null");
    return transaction;
  }

  private void crash(Incarnation incarnation) throws Exception {
    incarnation.crashed = true;
    crash(incarnation.participant);
  }

  private List<IN> visible() throws Exception {
    List<IN> all = committedRecords();
    assertNotNull(all, "committedRecords() returned null");
    if (all.size() < baseline.size() || !all.subList(0, baseline.size()).equals(baseline)) {
      fail(
          "the records committed before this test changed (or committedRecords() is not in commit"
              + " order): before "
              + baseline
              + ", now "
              + all);
    }
    return all.subList(baseline.size(), all.size());
  }

  private void assertVisible(List<IN> expected, String message) throws Exception {
    assertEquals(expected, visible(), message);
  }

  private void assertInProgress(TXN transaction, boolean expected, String when) throws Exception {
    if (inProgressCheckSupported()) {
      assertEquals(
          expected,
          isInProgress(transaction),
          "the resource " + (expected ? "no longer holds" : "still holds") + " " + transaction + " "
              + when);
    }
  }

  /** The call may return LOST or throw, but must not claim that it committed. */
  private static void assertNotReportedCommitted(String what, Callable<CommitOutcome> call) {
    CommitOutcome outcome;
    try {
      outcome = call.call();
    } catch (Exception e) {
      return; // the participant could not tell: throwing is allowed
    }
    if (outcome == CommitOutcome.COMMITTED || outcome == CommitOutcome.ALREADY_COMMITTED) {
      fail(what + " reported " + outcome + " for a transaction that was aborted");
    }
  }
}
