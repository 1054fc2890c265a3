package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.twophase.CommitOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link ParticipantConformanceSuite#commitRunsWhileTheNextTransactionIsWritten()}: the threads of a
 * self-driving coordinator. Transaction n is committed on a committer thread of its own while the
 * test thread, playing the application thread, writes into transaction n + 1, which was begun
 * (and written to) before the commit started, as the coordinator begins n + 1 before it decides n.
 * The application thread keeps writing until the commit returns (at most
 * {@value #MAX_WRITES_DURING_COMMIT} records), then pre-commits n + 1; {@value #ROUNDS} rounds.
 *
 * <p>After each commit exactly the transactions committed so far must be visible: a participant
 * that binds a transaction's resource to the thread that began it, or whose commit touches the
 * state of the transaction being written (a buffer or connection shared between transactions),
 * fails here. Whether a given write actually overlaps the commit depends on the scheduler; the
 * check needs no particular interleaving to be right, and never waits for one.
 */
final class ConcurrentCommitCheck<TXN, CONTEXT, IN> {

  static final int ROUNDS = 4;
  static final int MAX_WRITES_DURING_COMMIT = 200;
  /** How long a commit may take before the check reports it as hanging. */
  static final Duration HANG = Duration.ofSeconds(60);

  private final ParticipantConformanceSuite<TXN, CONTEXT, IN> suite;
  private final SuiteFixture<TXN, CONTEXT, IN> fixture;

  ConcurrentCommitCheck(ParticipantConformanceSuite<TXN, CONTEXT, IN> suite, SuiteFixture<TXN, CONTEXT, IN> fixture) {
    this.suite = suite;
    this.fixture = fixture;
  }

  void run() throws Exception {
    Incarnation<TXN, CONTEXT> process =
        fixture.coordinator(fixture.coordinatorId(), suite.participantName()).start();
    ExecutorService committer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "conformance-committer");
      t.setDaemon(true);
      return t;
    });
    try {
      List<IN> committed = new ArrayList<>();
      TXN current = process.begin();
      List<IN> currentRecords = write(process, current, 2);
      current = process.preCommit(current);
      for (int round = 1; round <= ROUNDS; round++) {
        TXN next = process.begin();
        List<IN> nextRecords = write(process, next, 2);
        CommitOutcome outcome = commitWhileWriting(committer, process, current, next, nextRecords, round);
        assertEquals(CommitOutcome.COMMITTED, outcome, "outcome of commit " + round + " on the "
            + "committer thread, while the application thread wrote the next transaction");
        committed.addAll(currentRecords);
        fixture.assertVisible(committed, "after commit " + round + " on the committer thread, while "
            + "the next transaction was written on the application thread: exactly the records of "
            + "the committed transactions may be visible, in order (records of the transaction being"
            + " written are missing, visible too early or lost if commit touches state shared with it)");
        current = process.preCommit(next);
        currentRecords = nextRecords;
      }
      TXN last = current;
      assertEquals(CommitOutcome.COMMITTED, await(committer.submit(() -> process.commit(last)), ROUNDS + 1),
          "outcome of the last commit on the committer thread");
      committed.addAll(currentRecords);
      fixture.assertVisible(committed, "after the last commit: every record, exactly once, in order");
    } finally {
      committer.shutdownNow();
      if (!committer.awaitTermination(HANG.toMillis(), TimeUnit.MILLISECONDS)) {
        fail("the committer thread did not end within " + HANG + " after the check: a commit hangs");
      }
    }
  }

  private CommitOutcome commitWhileWriting(
      ExecutorService committer, Incarnation<TXN, CONTEXT> process, TXN toCommit, TXN next,
      List<IN> nextRecords, int round) throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    Future<CommitOutcome> commit = committer.submit(() -> {
      started.countDown();
      return process.commit(toCommit);
    });
    started.await();
    int written = 0;
    do {
      IN record = fixture.nextRecord();
      suite.write(process.participant(), next, record);
      nextRecords.add(record);
      written++;
    } while (!commit.isDone() && written < MAX_WRITES_DURING_COMMIT);
    return await(commit, round);
  }

  private static CommitOutcome await(Future<CommitOutcome> commit, int round) throws Exception {
    try {
      return commit.get(HANG.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new AssertionError("commit " + round + " threw on the committer thread, while the "
          + "application thread wrote the next transaction: " + cause + ". Under a self-driving "
          + "Coordinator commits run on their own thread: a transaction's resource must not be bound"
          + " to the thread that began it, nor shared with the transaction being written", cause);
    } catch (TimeoutException e) {
      throw new AssertionError("commit " + round + " did not return within " + HANG + " on the "
          + "committer thread: does it wait for the application thread, or for a lock the writes hold?", e);
    }
  }

  private List<IN> write(Incarnation<TXN, CONTEXT> process, TXN transaction, int count) throws Exception {
    List<IN> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      IN record = fixture.nextRecord();
      suite.write(process.participant(), transaction, record);
      records.add(record);
    }
    return records;
  }
}
