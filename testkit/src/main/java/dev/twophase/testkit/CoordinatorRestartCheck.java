package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.ApplicationState;
import dev.twophase.Checkpoint;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FaultInjector;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.ProtocolPoint;
import dev.twophase.Writable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link ParticipantConformanceSuite#exactlyOnceUnderACoordinatorWithRestart()}: the participant
 * under a real {@link Coordinator} over a real {@link FileStateLog}, in three processes, one after
 * the other, over the same log directory. The application's input is the test records 0..19; its
 * position is the coordinator's {@link ApplicationState}.
 * <ol>
 *   <li>Process 1 decides and commits checkpoint 1 (records 0..4), then decides checkpoint 2
 *       (5..9), and stops right after the decision is durable, before any commit (its fault
 *       injector throws at {@link ProtocolPoint#AFTER_LOG_APPEND}); it is closed, which aborts the
 *       transactions already begun for checkpoint 3.
 *   <li>Process 2 recovers: it must commit checkpoint 2 from the log (through
 *       {@code recoverAndCommit}) and resume at record 10. It decides checkpoint 3 (10..14), writes
 *       15..17, and closes before deciding them: they are aborted.
 *   <li>Process 3 recovers, resumes at record 15, writes to the end and finishes.
 * </ol>
 * After each start and at the end, exactly the records before the restored position must be
 * visible, once each and in order. Commits run on the coordinator's committer thread; a commit
 * that fails there (the coordinator would retry it forever) fails the check at once.
 */
final class CoordinatorRestartCheck<TXN, CONTEXT, IN> {

  static final int RECORDS = 20;
  /** How long a checkpoint's commit may take before the check reports it as hanging. */
  static final Duration HANG = Duration.ofSeconds(60);
  /**
   * The coordinators' close timeout. Every decided checkpoint's commit is awaited before a close,
   * so a close never waits for a commit unless the check already failed (a commit that keeps
   * failing); then this bounds how long the clean-up takes.
   */
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

  private final ParticipantConformanceSuite<TXN, CONTEXT, IN> suite;
  private final SuiteFixture<TXN, CONTEXT, IN> fixture;
  private final List<IN> input = new ArrayList<>();
  /** The application's position: the next input to write. */
  private long position;
  private Path logDirectory;

  CoordinatorRestartCheck(ParticipantConformanceSuite<TXN, CONTEXT, IN> suite, SuiteFixture<TXN, CONTEXT, IN> fixture) {
    this.suite = suite;
    this.fixture = fixture;
  }

  /** Thrown by process 1's fault injector: the process stops right after a durable decision. */
  private static final class StopAfterDecision extends RuntimeException {
    StopAfterDecision() {
      super("the conformance check stops process 1 after the decision of checkpoint 2", null, false, false);
    }
  }

  /** Fails the check as soon as a commit fails on the committer thread. */
  private static final class CommitWatch implements CoordinatorListener {
    final CompletableFuture<CommitRetry> failed = new CompletableFuture<>();

    @Override
    public void onCommitRetried(CommitRetry retry) {
      failed.complete(retry);
    }
  }

  void run() throws Exception {
    for (int i = 0; i < RECORDS; i++) {
      input.add(fixture.nextRecord());
    }
    logDirectory = fixture.newDirectory("twophase-conformance-log");

    // Process 1: checkpoint 1 committed, checkpoint 2 decided only, records 10.. never written.
    boolean[] armed = {false};
    FaultInjector stopAfterSecondDecision = point -> {
      if (armed[0] && point.equals(ProtocolPoint.AFTER_LOG_APPEND.name())) {
        armed[0] = false;
        throw new StopAfterDecision();
      }
    };
    try (FileStateLog log = FileStateLog.open(logDirectory)) {
      CommitWatch watch = new CommitWatch();
      Participant<TXN, CONTEXT> participant = newParticipant(1);
      Coordinator coordinator = build(log, participant, stopAfterSecondDecision, watch, 1);
      try {
        expectRestored(0, 1);
        writeUpTo(coordinator, participant, 5);
        awaitCommitted(coordinator.checkpoint(), watch);
        fixture.assertVisible(input.subList(0, 5), "after checkpoint 1 was committed by the coordinator");
        writeUpTo(coordinator, participant, 10);
        armed[0] = true;
        try {
          coordinator.checkpoint();
        } catch (StopAfterDecision expected) {
          // the decision of checkpoint 2 is durable; nothing of it was committed
        }
      } finally {
        coordinator.close();
      }
    }
    fixture.assertVisible(input.subList(0, 5), "after process 1 stopped between the decision of "
        + "checkpoint 2 and its commit: only checkpoint 1 may be visible");

    // Process 2: recovery commits checkpoint 2; checkpoint 3 decided; 15..17 written, not decided.
    try (FileStateLog log = FileStateLog.open(logDirectory)) {
      CommitWatch watch = new CommitWatch();
      Participant<TXN, CONTEXT> participant = newParticipant(2);
      Coordinator coordinator = build(log, participant, FaultInjector.none(), watch, 2);
      try {
        expectRestored(10, 2);
        writeUpTo(coordinator, participant, 15);
        awaitCommitted(coordinator.checkpoint(), watch);
        writeUpTo(coordinator, participant, 18);
      } finally {
        coordinator.close();
      }
    }
    fixture.assertVisible(input.subList(0, 15), "after process 2 closed with records 15..17 written "
        + "but not decided: they must have been aborted");

    // Process 3: resumes at 15 and finishes.
    try (FileStateLog log = FileStateLog.open(logDirectory)) {
      CommitWatch watch = new CommitWatch();
      Participant<TXN, CONTEXT> participant = newParticipant(3);
      Coordinator coordinator = build(log, participant, FaultInjector.none(), watch, 3);
      try {
        expectRestored(15, 3);
        writeUpTo(coordinator, participant, RECORDS);
        awaitCommitted(coordinator.finish(), watch);
      } finally {
        coordinator.close();
      }
    }
    fixture.assertVisible(input, "at the end: every record exactly once, in order");
  }

  private Participant<TXN, CONTEXT> newParticipant(int process) throws Exception {
    return fixture.newParticipant(fixture.newProcess(
        "process " + process + " of coordinator '" + fixture.coordinatorId() + "' (under a Coordinator)"));
  }

  private Coordinator build(
      FileStateLog log, Participant<TXN, CONTEXT> participant, FaultInjector faults, CommitWatch watch,
      int process) {
    ApplicationState<Long> state = ApplicationState.of(
        Codecs.json(Long.class), id -> position, (restored, id) -> position = restored);
    position = 0;
    try {
      return Coordinator.builder(fixture.coordinatorId(), log)
          .participant(suite.participantName(), participant)
          .config(CoordinatorConfig.custom()
              .commitRetryBackoff(Duration.ofMillis(10), Duration.ofMillis(100), 2.0)
              .closeTimeout(CLOSE_TIMEOUT)
              .faultInjector(faults)
              .build())
          .listener(watch)
          .applicationState(state)
          .build();
    } catch (RuntimeException e) {
      throw new AssertionError("the coordinator of process " + process + " could not start"
          + (process == 1 ? "" : " over the state log the previous process left") + ": " + e
          + (process == 1 ? "" : ". Recovery calls recoverAndCommit, recoverAndAbort and "
              + "finishRecoveringContext, then begins new transactions; transaction names must come "
              + "from TransactionContext.transactionName(), never from the checkpoint id, which an "
              + "undecided checkpoint gives again after a restart"), e);
    }
  }

  private void expectRestored(long expected, int process) throws Exception {
    assertEquals(expected, position, "the position process " + process + " resumes at");
    fixture.assertVisible(input.subList(0, (int) expected), "right after process " + process
        + " recovered: exactly the decided records before its position " + expected);
  }

  private void writeUpTo(Coordinator coordinator, Participant<TXN, CONTEXT> participant, int end)
      throws Exception {
    Output<IN> output = participant instanceof Writable ? output(coordinator, participant) : null;
    while (position < end) {
      IN record = input.get((int) position);
      if (output != null) {
        output.write(record);
      } else {
        suite.write(participant, coordinator.currentTransaction(participant), record);
      }
      position++;
    }
  }

  private Output<IN> output(Coordinator coordinator, Participant<TXN, CONTEXT> participant) {
    return outputOf(coordinator, participant);
  }

  @SuppressWarnings("unchecked")
  private static <I, T, P extends Participant<T, ?> & Writable<I, T>> Output<I> outputOf(
      Coordinator coordinator, Object participant) {
    return coordinator.output((P) participant);
  }

  private static void awaitCommitted(Checkpoint checkpoint, CommitWatch watch) throws Exception {
    CompletableFuture<Void> committed = checkpoint.committed().toCompletableFuture();
    try {
      CompletableFuture.anyOf(committed, watch.failed).get(HANG.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("checkpoint " + checkpoint.id() + " was not committed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("checkpoint " + checkpoint.id() + " was not committed within " + HANG, e);
    }
    if (!committed.isDone() && watch.failed.isDone()) {
      CoordinatorListener.CommitRetry retry = watch.failed.getNow(null);
      throw new AssertionError("the commit of checkpoint " + retry.checkpointId() + " failed on the "
          + "coordinator's committer thread (attempt " + retry.attempt() + "), and the coordinator "
          + "would retry it forever: " + retry.cause(), retry.cause());
    }
  }
}
