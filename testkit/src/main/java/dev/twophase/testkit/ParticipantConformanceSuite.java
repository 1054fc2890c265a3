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
import dev.twophase.annotation.PublicEvolving;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite every {@link Participant} implementation should pass, in the spirit of
 * Flink's {@code SinkTestSuiteBase}. Extend it in a test class, implement the abstract methods, and
 * JUnit runs every check below against your participant:
 *
 * <pre>{@code
 * class MyParticipantConformanceTest
 *     extends ParticipantConformanceSuite<MyHandle, Void, String> {
 *   private MyResource resource;
 *
 *   @Override protected void setUpResource() { resource = MyResource.createFresh(); }
 *   @Override protected void tearDownResource() { resource.drop(); }
 *   @Override protected Participant<MyHandle, Void> newParticipant(SimulatedProcess process) {
 *     return MyParticipant.builder(resource)
 *         .connections(() -> process.track(resource.connect(), MyConnection::abort))
 *         .build();
 *   }
 *   @Override protected List<String> committedRecords() { return resource.readCommitted(); }
 *   @Override protected String record(int i) { return "record-" + i; }
 * }
 * }</pre>
 *
 * <h2>What the suite assumes</h2>
 * <ul>
 *   <li>{@link #newParticipant(SimulatedProcess)} returns a new instance on the same external
 *       resource each time, living in the given {@link SimulatedProcess}; the suite treats every
 *       instance as a separate process. To simulate a crash it <em>kills</em> the process: the
 *       kill actions registered with it run (drop a connection, close a producer without aborting)
 *       and the instance is never called again; a new instance then recovers. Handles pass from
 *       one instance to the next only through the participant's
 *       {@link Participant#transactionCodec() codec}, as they do through the coordinator's state
 *       log.
 *   <li>{@link #committedRecords()} reads everything committed to the resource, the way a
 *       read_committed consumer would, in commit order (and write order within a transaction).
 *       Records must have a meaningful {@code equals}.
 *   <li>Each test uses its own coordinator id (random), so tests don't see each other's
 *       transactions. The suite reads {@link #committedRecords()} once, right after the test's first
 *       {@link #newParticipant} (so a participant may create its tables or topics in its
 *       constructor), and checks only what was added after that, so the resource may hold older
 *       data, but nothing else may commit to it while a test runs.
 *   <li>Calls follow the coordinator's order: on every start, an instance first commits and aborts
 *       the recovered handles, then gets {@code finishRecoveringContext}, then begins transactions.
 *       Owner epochs grow with every start of a coordinator id. Two checks call the participant
 *       from two threads, as a self-driving {@link dev.twophase.Coordinator} does: commits on one,
 *       everything else on another.
 * </ul>
 *
 * <h2>Life cycle</h2>
 * The suite's {@code @BeforeEach} calls {@link #setUpResource()} and its {@code @AfterEach} aborts
 * what the test left open, closes the live instances, ends every simulated process and calls
 * {@link #tearDownResource()}. Create or clean the resource in {@code setUpResource()}, not in a
 * {@code @BeforeEach} of your own: JUnit runs a subclass's {@code @BeforeEach} methods after the
 * suite's. The order within a test is: {@code setUpResource()}, the first {@code
 * newParticipant(process)}, the first {@code committedRecords()} (the baseline), then the test. {@code @BeforeAll}/{@code @AfterAll} in
 * the subclass are fine for expensive things such as a container.
 *
 * <h2>Skipped tests</h2>
 * Only {@link #lostTransactionIsReportedAsLost()} may be skipped, when the resource cannot expire a
 * transaction on demand ({@link #lostTransactionSupported()}). Checks that need {@link
 * #isInProgress} are left out of a test (not skipped) when {@link #inProgressCheckSupported()} is
 * false; implement it if you can, it makes the suite notice aborts that do nothing.
 *
 * <p>The suite calls the participant in one JVM. What it cannot see (a commit that is not atomic,
 * data that does not survive a real crash) the crash harness in {@code dev.twophase.testkit.crash}
 * checks in child JVMs; see {@code docs/testing-a-participant.md}.
 *
 * @param <TXN> the participant's transaction handle
 * @param <CONTEXT> the participant's user context ({@link Void} if none)
 * @param <IN> record type
 */
@PublicEvolving
public abstract class ParticipantConformanceSuite<TXN, CONTEXT, IN> {

  // ------------------------------------------------------------------------- for subclasses

  /**
   * A new participant instance on the same external resource, living in {@code process}. Every
   * call stands for a new process: it must not share in-memory state (buffers, open transactions)
   * with earlier instances. Register with {@code process} what a killed process would lose
   * (see {@link SimulatedProcess}): the suite kills it to simulate a crash, and never calls the
   * participant of a killed process again.
   */
  protected abstract Participant<TXN, CONTEXT> newParticipant(SimulatedProcess process)
      throws Exception;

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
   * Writes {@code record} into {@code transaction}, the handle {@code beginTransaction} returned.
   * The default uses the {@link RecordWriter} the participant's {@link Writable#writerFor} returned
   * for the transaction (the suite asks for it once, right after {@code beginTransaction}, as the
   * coordinator does); participants that expose their resource otherwise must override this. In
   * {@link #exactlyOnceUnderACoordinatorWithRestart()}, {@code transaction} is the coordinator's
   * {@code currentTransaction(participant)}.
   */
  protected void write(Participant<TXN, CONTEXT> participant, TXN transaction, IN record)
      throws Exception {
    if (!(participant instanceof Writable)) {
      throw new UnsupportedOperationException(
          participant.getClass().getName()
              + " does not implement Writable: override ParticipantConformanceSuite.write(...) to"
              + " say how a record goes into a transaction");
    }
    Incarnation<TXN, CONTEXT> incarnation = fixture.incarnationOf(participant);
    incarnation.write(transaction, record);
  }

  /**
   * Creates or cleans the external resource before each test (see the class comment for why here
   * rather than in a {@code @BeforeEach} of your own). Default: nothing.
   */
  protected void setUpResource() throws Exception {}

  /** Releases the external resource after each test, after the participants were closed. */
  protected void tearDownResource() throws Exception {}

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

  private final SuiteFixture<TXN, CONTEXT, IN> fixture = new SuiteFixture<>(this);

  /** Prepares a test: a fresh coordinator id, {@link #setUpResource()}; the baseline is read after the first participant. */
  @BeforeEach
  protected final void setUpConformanceTest() throws Exception {
    fixture.setUp(coordinatorIdPrefix() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
  }

  /**
   * Aborts what the test left open in live instances (failures ignored), closes them, ends every
   * simulated process, then calls {@link #tearDownResource()}. A failing {@code close()} fails the
   * test.
   */
  @AfterEach
  protected final void tearDownConformanceTest() throws Exception {
    fixture.tearDown();
  }

  // ------------------------------------------------------------------------- the tests

  /** begin, write, preCommit show nothing; commit shows the records once, in order: COMMITTED. */
  @Test
  public void preCommittedRecordsStayInvisibleUntilCommit() throws Exception {
    Incarnation<TXN, CONTEXT> process = start();
    TXN txn = process.begin();
    List<IN> records = write(process, txn, 3);
    assertVisible(List.of(), "records of an open transaction are visible");
    txn = process.preCommit(txn);
    assertVisible(List.of(), "records of a pre-committed transaction are visible before commit");
    assertInProgress(txn, true, "after preCommit");

    assertEquals(CommitOutcome.COMMITTED, process.commit(txn), "outcome of the first commit");
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
    Incarnation<TXN, CONTEXT> process = start();
    TXN aborted = process.begin();
    write(process, aborted, 2);
    if (preCommitted) {
      aborted = process.preCommit(aborted);
    }
    process.abort(aborted);
    assertInProgress(aborted, false, "after abort");
    process.participant().abort(aborted); // must tolerate a transaction that is already gone
    assertVisible(List.of(), "records of an aborted transaction are visible");

    TXN next = process.begin();
    List<IN> records = write(process, next, 2);
    next = process.preCommit(next);
    if (preCommitted) { // commit is only ever called with a handle preCommit returned
      TXN gone = aborted;
      assertNotReportedCommitted(
          "commit of the aborted transaction", () -> process.participant().commit(gone));
    }
    assertEquals(CommitOutcome.COMMITTED, process.commit(next), "outcome of the next transaction");
    assertVisible(records, "only the records of the committed transaction may be visible");
  }

  /** commit twice: the second reports ALREADY_COMMITTED and the records show once. */
  @Test
  public void secondCommitReportsAlreadyCommitted() throws Exception {
    Incarnation<TXN, CONTEXT> process = start();
    TXN txn = process.begin();
    List<IN> records = write(process, txn, 2);
    txn = process.preCommit(txn);
    assertEquals(CommitOutcome.COMMITTED, process.commit(txn), "outcome of the first commit");
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        process.participant().commit(txn),
        "a repeated commit must report ALREADY_COMMITTED, not COMMITTED twice");
    assertVisible(records, "records of a transaction committed twice must show exactly once");
  }

  /**
   * A pre-committed transaction is committed from a new process with the decoded handle alone;
   * repeating it, from the same and from yet another process, reports ALREADY_COMMITTED.
   */
  @Test
  public void recoverAndCommitFromNewProcess() throws Exception {
    Incarnation<TXN, CONTEXT> first = start();
    TXN txn = first.begin();
    List<IN> records = write(first, txn, 3);
    txn = first.preCommit(txn);
    LoggedHandle<TXN> logged = first.log(txn);
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN restored = second.restore(logged);
    assertEquals(
        CommitOutcome.COMMITTED,
        second.recoverAndCommit(restored),
        "recoverAndCommit of a pre-committed transaction from a new process");
    assertVisible(records, "recovered records must show exactly once, in write order");
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        second.recoverAndCommit(restored),
        "a repeated recoverAndCommit in the same process");
    second.finishRecovery(List.of(restored));
    kill(second);

    Incarnation<TXN, CONTEXT> third = restart();
    TXN again = third.restore(logged);
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        third.recoverAndCommit(again),
        "recoverAndCommit repeated after another crash");
    third.finishRecovery(List.of(again));
    assertVisible(records, "records recovered twice must show exactly once");
  }

  /** Handles of two decided checkpoints recovered in creation order show in that order. */
  @Test
  public void recoverAndCommitKeepsCreationOrder() throws Exception {
    Incarnation<TXN, CONTEXT> first = start();
    TXN older = first.begin();
    List<IN> expected = new ArrayList<>(write(first, older, 2));
    older = first.preCommit(older);
    TXN newer = first.begin();
    expected.addAll(write(first, newer, 2));
    newer = first.preCommit(newer);
    LoggedHandle<TXN> olderLogged = first.log(older);
    LoggedHandle<TXN> newerLogged = first.log(newer);
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN olderRestored = second.restore(olderLogged);
    TXN newerRestored = second.restore(newerLogged);
    assertEquals(CommitOutcome.COMMITTED, second.recoverAndCommit(olderRestored));
    assertEquals(CommitOutcome.COMMITTED, second.recoverAndCommit(newerRestored));
    second.finishRecovery(List.of(olderRestored, newerRestored));
    assertVisible(expected, "recovered transactions must show in creation order");
  }

  /** recoverAndCommit of a transaction committed before the crash reports ALREADY_COMMITTED. */
  @Test
  public void recoverAndCommitOfCommittedHandleReportsAlreadyCommitted() throws Exception {
    Incarnation<TXN, CONTEXT> first = start();
    TXN txn = first.begin();
    List<IN> records = write(first, txn, 2);
    txn = first.preCommit(txn);
    assertEquals(CommitOutcome.COMMITTED, first.commit(txn));
    LoggedHandle<TXN> logged = first.log(txn);
    kill(first); // after the commit, before the completion mark

    Incarnation<TXN, CONTEXT> second = restart();
    TXN restored = second.restore(logged);
    assertEquals(
        CommitOutcome.ALREADY_COMMITTED,
        second.recoverAndCommit(restored),
        "recoverAndCommit of a transaction that was committed before the crash");
    second.finishRecovery(List.of(restored));
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
    Incarnation<TXN, CONTEXT> first = start();
    TXN txn = first.begin();
    // The coordinator logs the handle beginTransaction returned as "open": recovery aborts that one.
    LoggedHandle<TXN> logged = first.log(txn);
    write(first, txn, 2);
    LoggedHandle<TXN> committableLogged = preCommitted ? first.log(first.preCommit(txn)) : null;
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN restored = second.restore(logged);
    AbortOutcome outcome = second.recoverAndAbort(restored);
    assertNotNull(outcome, "recoverAndAbort returned null");
    assertNotEquals(AbortOutcome.COMMITTED, outcome,
        "recoverAndAbort of a transaction that was never committed reported COMMITTED");
    if (preCommitted) {
      assertEquals(AbortOutcome.ABORTED, outcome,
          "recoverAndAbort of a pre-committed transaction must find and roll it back (ABORTED), "
              + "looking it up by its name: the logged handle is the one beginTransaction returned");
    }
    assertInProgress(restored, false, "after recoverAndAbort from a new process");
    assertEquals(AbortOutcome.NOT_FOUND, second.recoverAndAbort(restored),
        "a repeated recoverAndAbort finds nothing left to roll back");
    if (preCommitted) {
      TXN committable = second.restore(committableLogged);
      assertNotReportedCommitted(
          "recoverAndCommit after recoverAndAbort", () -> second.recoverAndCommit(committable));
    }
    second.finishRecovery(List.of(restored));
    assertVisible(List.of(), "records of a transaction aborted on recovery are visible");

    TXN next = second.begin();
    List<IN> records = write(second, next, 2);
    next = second.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, second.commit(next));
    assertVisible(records, "only the records of the new transaction may be visible");
  }

  /**
   * recoverAndAbort of a handle the resource does not know (never begun, or begun and aborted)
   * succeeds silently and leaves committed data alone.
   */
  @Test
  public void recoverAndAbortOfUnknownHandleIsHarmless() throws Exception {
    Incarnation<TXN, CONTEXT> first = start();
    TXN committed = first.begin();
    List<IN> records = write(first, committed, 2);
    committed = first.preCommit(committed);
    assertEquals(CommitOutcome.COMMITTED, first.commit(committed));
    TXN aborted = first.begin();
    LoggedHandle<TXN> abortedLogged = first.log(aborted);
    write(first, aborted, 1);
    first.abort(aborted);
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    List<TXN> handled = new ArrayList<>();
    TXN restored = second.restore(abortedLogged);
    assertEquals(AbortOutcome.NOT_FOUND, second.recoverAndAbort(restored),
        "recoverAndAbort of a transaction aborted before the crash finds nothing to roll back");
    handled.add(restored);
    Optional<TXN> neverBegun =
        handleNeverBegun(second.transactionContext(coordinator().lastCheckpointId() + 1, 999_999));
    if (neverBegun.isPresent()) {
      TXN ghost = second.restore(second.log(neverBegun.get()));
      assertEquals(AbortOutcome.NOT_FOUND, second.recoverAndAbort(ghost),
          "recoverAndAbort of a transaction the resource never saw");
      assertEquals(AbortOutcome.NOT_FOUND, second.recoverAndAbort(ghost),
          "recoverAndAbort, repeated, of a transaction the resource never saw");
      handled.add(ghost);
    }
    second.finishRecovery(handled);
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
    Incarnation<TXN, CONTEXT> first = start();
    TXN txn = first.begin();
    LoggedHandle<TXN> logged = first.log(txn);
    List<IN> records = write(first, txn, 3);
    txn = first.preCommit(txn);
    assertEquals(CommitOutcome.COMMITTED, first.commit(txn));
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN restored = second.restore(logged);
    assertEquals(AbortOutcome.COMMITTED, second.recoverAndAbort(restored),
        "recoverAndAbort of a committed transaction must report COMMITTED (proof that the log lost "
            + "a decision), looking the transaction up by its name");
    assertEquals(AbortOutcome.COMMITTED, second.recoverAndAbort(restored),
        "a repeated recoverAndAbort of a committed transaction");
    assertVisible(records, "recoverAndAbort of a committed transaction changed its data");
    second.finishRecovery(List.of(restored));
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
    String otherCoordinator = coordinatorId() + "-" + participantName();
    Incarnation<TXN, CONTEXT> other = coordinator(otherCoordinator, participantName()).start();
    TXN othersTxn = other.begin();
    List<IN> othersRecords = write(other, othersTxn, 2);
    othersTxn = other.preCommit(othersTxn);
    Incarnation<TXN, CONTEXT> sibling = coordinator(coordinatorId(), participantName() + "2").start();
    TXN siblingTxn = sibling.begin();
    List<IN> siblingRecords = write(sibling, siblingTxn, 2);
    siblingTxn = sibling.preCommit(siblingTxn);

    Incarnation<TXN, CONTEXT> first = start();
    TXN lingeringPrepared = first.begin();
    write(first, lingeringPrepared, 2);
    lingeringPrepared = first.preCommit(lingeringPrepared);
    TXN lingeringOpen = first.begin();
    write(first, lingeringOpen, 2);
    LoggedHandle<TXN> preparedLogged = first.log(lingeringPrepared);
    kill(first); // before the log append that would have named these transactions

    Incarnation<TXN, CONTEXT> second = restart();
    second.finishRecovery(List.of());
    assertInProgress(lingeringPrepared, false, "lingering pre-committed transaction after recovery");
    assertInProgress(lingeringOpen, false, "lingering open transaction after recovery");
    assertInProgress(othersTxn, true, "another coordinator's transaction after recovery");
    assertInProgress(siblingTxn, true, "another participant's transaction after recovery");
    TXN restored = second.restore(preparedLogged);
    assertNotReportedCommitted(
        "recoverAndCommit of a lingering transaction aborted by finishRecoveringContext",
        () -> second.recoverAndCommit(restored));
    assertVisible(List.of(), "records of lingering transactions are visible");

    assertEquals(
        CommitOutcome.COMMITTED,
        other.commit(othersTxn),
        "another coordinator's pre-committed transaction must survive this coordinator's recovery");
    assertVisible(othersRecords, "only the other coordinator's records may be visible");
    assertEquals(
        CommitOutcome.COMMITTED,
        sibling.commit(siblingTxn),
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
    Incarnation<TXN, CONTEXT> first = start();
    TXN decided = first.begin();
    List<IN> expected = new ArrayList<>(write(first, decided, 2));
    decided = first.preCommit(decided);
    TXN newlyBegun = first.begin();
    LoggedHandle<TXN> decidedLogged = first.log(decided);
    LoggedHandle<TXN> newlyBegunLogged = first.log(newlyBegun);
    write(first, newlyBegun, 2);
    kill(first); // after the log append, before the commit

    Incarnation<TXN, CONTEXT> second = restart();
    TXN decidedRestored = second.restore(decidedLogged);
    TXN newlyBegunRestored = second.restore(newlyBegunLogged);
    assertEquals(CommitOutcome.COMMITTED, second.recoverAndCommit(decidedRestored));
    assertNotEquals(AbortOutcome.COMMITTED, second.recoverAndAbort(newlyBegunRestored),
        "recoverAndAbort of the newly begun transaction");
    second.finishRecovery(List.of(decidedRestored, newlyBegunRestored));
    assertVisible(expected, "after recovery only the decided transaction may be visible");
    assertInProgress(newlyBegunRestored, false, "the newly begun transaction after recovery");

    TXN next = second.begin();
    expected.addAll(write(second, next, 2));
    next = second.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, second.commit(next));
    assertVisible(expected, "records after recovery");
  }

  /**
   * Handles and the user context survive the codec, as the state log needs them:
   * {@code decode(encode(h))} equals {@code h}, with the same hash code, for the handle
   * {@code beginTransaction} returns and for the one {@code preCommit} returns, and the decoded
   * committable handle commits; a version newer than the codec's is refused.
   */
  @Test
  public void handleAndContextSurviveTheCodec() throws Exception {
    Incarnation<TXN, CONTEXT> process = start();
    Codec<TXN> codec = process.participant().transactionCodec();
    TXN txn = process.begin();
    byte[] bytes = codec.encode(txn);
    assertNotNull(bytes, "Codec.encode returned null");
    assertSameValue(txn, codec.decode(bytes, codec.version()), "the handle beginTransaction returned");
    assertThrows(
        Exception.class,
        () -> codec.decode(bytes, codec.version() + 1),
        "decoding a version newer than the codec's must fail, not guess");

    List<IN> records = write(process, txn, 2);
    TXN committable = process.preCommit(txn);
    // The coordinator logs the handle preCommit returned, which may gather what the writes created
    // (a file participant's part files): commit through it as the log holds it.
    TXN logged = codec.decode(codec.encode(committable), codec.version());
    assertSameValue(committable, logged, "the handle preCommit returned");
    assertEquals(CommitOutcome.COMMITTED, process.commit(logged), "commit through the decoded handle");
    assertVisible(records, "records committed through the decoded handle");

    if (process.userContext().isPresent()) {
      Codec<CONTEXT> contextCodec = process.participant().contextCodec();
      CONTEXT context = process.userContext().get();
      byte[] contextBytes = contextCodec.encode(context);
      CONTEXT contextDecoded = contextCodec.decode(contextBytes, contextCodec.version());
      assertTrue(
          context.equals(contextDecoded)
              || Arrays.equals(contextBytes, contextCodec.encode(contextDecoded)),
          "the user context does not survive its codec: " + context + " vs " + contextDecoded);
    }
  }

  /**
   * Handles are immutable values: writing records into a transaction and pre-committing it leave
   * the handle {@code beginTransaction} returned as it was (the state log holds that one as the
   * open transaction from the moment it is begun, and recovery aborts through it), and committing
   * leaves the committable handle as it was. What a transaction gathers while it is written (the
   * files it created, say) belongs in the new handle {@code preCommit} returns.
   */
  @Test
  public void handlesAreImmutableValues() throws Exception {
    Incarnation<TXN, CONTEXT> process = start();
    Codec<TXN> codec = process.participant().transactionCodec();
    TXN begun = process.begin();
    byte[] begunBytes = codec.encode(begun);
    String begunText = String.valueOf(begun);
    List<IN> records = write(process, begun, 3);
    TXN committable = process.preCommit(begun);
    assertTrue(Arrays.equals(begunBytes, codec.encode(begun)),
        "the handle beginTransaction returned changed while records were written and pre-committed ("
            + begunText + " became " + begun + "): a handle must be an immutable value (a record);"
            + " return what the transaction gathered in a new handle from preCommit");
    byte[] committableBytes = codec.encode(committable);
    assertEquals(CommitOutcome.COMMITTED, process.commit(committable), "outcome of the commit");
    assertTrue(Arrays.equals(committableBytes, codec.encode(committable)),
        "commit changed the handle it was given (" + committable + "): a handle must be an "
            + "immutable value, since the state log may pass the same one again");
    assertVisible(records, "committed records");
  }

  /** A pre-committed transaction the resource expired is reported LOST, and nothing shows. */
  @Test
  public void lostTransactionIsReportedAsLost() throws Exception {
    assumeTrue(
        lostTransactionSupported(),
        "skipped: the resource cannot expire a transaction on demand; override"
            + " lostTransactionSupported() and makeLost(TXN) to run this test");
    Incarnation<TXN, CONTEXT> first = start();
    TXN begun = first.begin();
    write(first, begun, 2);
    TXN txn = first.preCommit(begun);
    LoggedHandle<TXN> logged = first.log(txn);
    makeLost(txn);
    assertEquals(
        CommitOutcome.LOST, first.participant().commit(txn), "commit of an expired transaction");
    assertVisible(List.of(), "records of an expired transaction are visible");
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN restored = second.restore(logged);
    assertEquals(
        CommitOutcome.LOST,
        second.recoverAndCommit(restored),
        "recoverAndCommit of an expired transaction from a new process");
    second.finishRecovery(List.of(restored));
    assertVisible(List.of(), "records of an expired transaction are visible after recovery");
  }

  /**
   * Several transactions pending at once (each begun after the previous pre-commit, as the
   * coordinator does) commit in creation order, and their records show in that order.
   */
  @Test
  public void transactionsCommitInCreationOrder() throws Exception {
    Incarnation<TXN, CONTEXT> process = start();
    List<TXN> transactions = new ArrayList<>();
    List<IN> expected = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TXN txn = process.begin();
      expected.addAll(write(process, txn, 3));
      transactions.add(process.preCommit(txn));
    }
    assertVisible(List.of(), "pre-committed transactions are visible before commit");
    List<IN> visibleSoFar = new ArrayList<>();
    for (int i = 0; i < transactions.size(); i++) {
      assertEquals(CommitOutcome.COMMITTED, process.commit(transactions.get(i)));
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
    Incarnation<TXN, CONTEXT> first = start();
    TXN committed = first.preCommit(first.begin());
    assertEquals(CommitOutcome.COMMITTED, first.commit(committed), "commit of an empty transaction");
    TXN decided = first.preCommit(first.begin());
    LoggedHandle<TXN> committedLogged = first.log(committed);
    LoggedHandle<TXN> decidedLogged = first.log(decided);
    kill(first);

    Incarnation<TXN, CONTEXT> second = restart();
    TXN committedRestored = second.restore(committedLogged);
    TXN decidedRestored = second.restore(decidedLogged);
    assertNotEquals(
        CommitOutcome.LOST,
        second.recoverAndCommit(committedRestored),
        "recoverAndCommit of a committed empty transaction");
    assertNotEquals(
        CommitOutcome.LOST,
        second.recoverAndCommit(decidedRestored),
        "recoverAndCommit of a decided empty transaction");
    second.finishRecovery(List.of(committedRestored, decidedRestored));
    assertVisible(List.of(), "an empty transaction made records visible");

    TXN next = second.begin();
    List<IN> records = write(second, next, 1);
    next = second.preCommit(next);
    assertEquals(CommitOutcome.COMMITTED, second.commit(next));
    assertVisible(records, "records after empty transactions");
  }

  /**
   * {@code commit(n)} runs on another thread while the application thread writes to, and then
   * pre-commits, transaction {@code n + 1}, as under a self-driving coordinator: each commit makes
   * exactly its own transaction visible, the records written meanwhile stay invisible until their
   * own commit, and nothing is lost. See {@link ConcurrentCommitCheck}.
   */
  @Test
  public void commitRunsWhileTheNextTransactionIsWritten() throws Exception {
    new ConcurrentCommitCheck<>(this, fixture).run();
  }

  /**
   * Under a real {@link dev.twophase.Coordinator} over a real {@link dev.twophase.FileStateLog}:
   * a decided checkpoint left uncommitted by the first process is committed by recovery in the
   * second, records not yet decided when the second closes are aborted and written again by the
   * third, and in the end every record shows exactly once, in order. See
   * {@link CoordinatorRestartCheck}.
   */
  @Test
  public void exactlyOnceUnderACoordinatorWithRestart() throws Exception {
    new CoordinatorRestartCheck<>(this, fixture).run();
  }

  /** The participant's declarations are sane: codecs with positive versions, a positive timeout. */
  @Test
  public void declarationsAreSane() throws Exception {
    Participant<TXN, CONTEXT> participant = start().participant();
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

  private String coordinatorId() {
    return fixture.coordinatorId();
  }

  /** This test's coordinator, with the participant name of {@link #participantName()}. */
  private ManualCoordinator<TXN, CONTEXT> coordinator() {
    return coordinator(coordinatorId(), participantName());
  }

  private ManualCoordinator<TXN, CONTEXT> coordinator(String id, String name) {
    return fixture.coordinator(id, name);
  }

  /** A new process of this test's coordinator that recovers nothing. */
  private Incarnation<TXN, CONTEXT> start() throws Exception {
    return coordinator().start();
  }

  /** A new process of this test's coordinator, recovering: it must finish recovery itself. */
  private Incarnation<TXN, CONTEXT> restart() throws Exception {
    return coordinator().newIncarnation();
  }

  /** Kills the incarnation's process. */
  private void kill(Incarnation<TXN, CONTEXT> incarnation) throws Exception {
    incarnation.kill();
  }

  /** Writes the next {@code count} test records into {@code transaction}; returns them. */
  private List<IN> write(Incarnation<TXN, CONTEXT> incarnation, TXN transaction, int count)
      throws Exception {
    List<IN> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      IN record = fixture.nextRecord();
      write(incarnation.participant(), transaction, record);
      records.add(record);
    }
    return records;
  }

  private void assertVisible(List<IN> expected, String message) throws Exception {
    fixture.assertVisible(expected, message);
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

  /** A handle and its decoded copy: equal, with equal hash codes, as values must be. */
  private static <T> void assertSameValue(T handle, T decoded, String which) {
    assertNotNull(decoded, "Codec.decode returned null for " + which);
    assertEquals(handle, decoded, "decode(encode(h)) does not equal h for " + which + ": a handle "
        + "must be a value (a record) whose every field the codec writes");
    assertEquals(handle.hashCode(), decoded.hashCode(), "decode(encode(h)) equals h but its "
        + "hashCode differs, for " + which + ": implement hashCode with equals (a record does)");
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
