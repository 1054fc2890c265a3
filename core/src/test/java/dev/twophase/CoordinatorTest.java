package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.internal.StateCodec;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The self-driving coordinator over an in-memory log and in-memory participants. */
class CoordinatorTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(1_000);
  private final InMemoryResource<String> kafka = new InMemoryResource<>();
  private final InMemoryResource<String> db = new InMemoryResource<>();
  private final RecordingListener listener = new RecordingListener();
  private final List<Coordinator> toClose = new ArrayList<>();
  private InMemoryStateLog log = new InMemoryStateLog(LOG_ID);

  /** The application's input position, snapshotted and restored through ApplicationState. */
  private final AtomicLong position = new AtomicLong();
  private final List<Long> restores = new ArrayList<>();

  /** The name of the kafka participant's transaction {@code sequence} of incarnation {@code epoch}. */
  private String kafkaTxn(long epoch, long sequence) {
    return TransactionNames.name(TransactionNames.prefix("job", "kafka", LOG_ID), epoch, sequence);
  }

  private static final String LOG_ID = "testlog1";

  @AfterEach
  void closeAll() {
    toClose.forEach(Coordinator::close);
  }

  private InMemoryParticipant<String> participant(InMemoryResource<String> resource) {
    return InMemoryParticipant.builder(resource).clock(clock).build();
  }

  private Coordinator.Builder builder(CoordinatorConfig.Builder config, Participant<?, ?>... participants) {
    Coordinator.Builder b = Coordinator.builder("job", log)
        .listener(listener)
        .config(config.clock(clock).ticker(clock).commitRetryBackoff(Duration.ofMillis(1), Duration.ofMillis(5), 2).build())
        .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> position.get(), (p, id) -> {
          position.set(p);
          restores.add(p);
        }));
    String[] names = {"kafka", "db", "files"};
    for (int i = 0; i < participants.length; i++) {
      b.participant(names[i], participants[i]);
    }
    return b;
  }

  private Coordinator start(CoordinatorConfig.Builder config, Participant<?, ?>... participants) {
    Coordinator c = builder(config, participants).build();
    toClose.add(c);
    return c;
  }

  private static void write(Output<String> a, Output<String> b, AtomicLong position, String record) {
    a.write(record);
    b.write(record);
    position.incrementAndGet();
  }

  @Test
  void checkpointCommitsEveryParticipantAfterTheDecision() {
    InMemoryParticipant<String> k = participant(kafka);
    InMemoryParticipant<String> d = participant(db);
    Coordinator c = start(CoordinatorConfig.custom(), k, d);
    Output<String> ok = c.output(k);
    Output<String> od = c.output(d);
    write(ok, od, position, "r1");
    write(ok, od, position, "r2");
    Checkpoint cp = c.checkpoint();
    assertEquals(1, cp.id());
    cp.awaitCommitted(WAIT);
    assertEquals(List.of("r1", "r2"), kafka.committedRecords());
    assertEquals(List.of("r1", "r2"), db.committedRecords());
    assertEquals(List.of("state job 0", "state job 1", "completed job 1"), log.appends());
    assertTrue(listener.events.containsAll(List.of("started 1", "decided 1", "committed 1")), listener.events.toString());
  }

  @Test
  void nothingIsVisibleBeforeTheDecisionIsDurable() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    c.output(k).write("r1");
    log.failNextAppend(new TwoPhaseException("disk full"));
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    assertEquals(1, e.checkpointId().getAsLong());
    assertEquals(CoordinatorState.FAILED, c.state());
    assertEquals(List.of(), kafka.committedRecords());
    // Outcome unknown: the pre-committed transaction is neither committed nor aborted.
    assertTrue(kafka.history().stream().noneMatch(h -> h.startsWith("abort " + kafkaTxn(1, 0))), kafka.history().toString());
    assertThrows(FatalTwoPhaseException.class, () -> c.output(k).write("r2"));
    c.close();
    // Recovery: the record never reached the log, so the transaction is aborted.
    log = log.reopen();
    start(CoordinatorConfig.custom(), participant(kafka));
    assertEquals(List.of(), kafka.committedRecords());
    assertEquals(Set.of(kafkaTxn(2, 0)), kafka.openTransactions());
  }

  @Test
  void appendThatFailsAfterReachingTheLogIsCommittedByRecovery() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    c.output(k).write("r1");
    position.set(1);
    log.failNextAppendAfterWrite(new TwoPhaseException("fsync failed"));
    assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    c.close();
    assertEquals(List.of(), kafka.committedRecords());
    log = log.reopen();
    position.set(0);
    Coordinator again = start(CoordinatorConfig.custom(), participant(kafka));
    assertEquals(List.of("r1"), kafka.committedRecords());
    assertEquals(1, again.lastCheckpointId());
    assertEquals(1, position.get(), "the application resumes after the decided record");
  }

  @Test
  void preCommitFailureInOneParticipantAbortsTheCheckpointEverywhere() {
    InMemoryParticipant<String> k = participant(kafka);
    InMemoryParticipant<String> d = participant(db);
    Coordinator c = start(CoordinatorConfig.custom(), k, d);
    Output<String> ok = c.output(k);
    Output<String> od = c.output(d);
    write(ok, od, position, "r1");
    c.checkpoint().awaitCommitted(WAIT);
    write(ok, od, position, "r2");
    d.failNextPreCommit(new IOException("db down"));
    CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
    assertEquals(2, e.checkpointId().getAsLong());
    assertEquals("db", e.participant().orElseThrow());
    assertEquals(1, e.lastDecidedCheckpointId());
    assertEquals(List.of(1L), restores, "the application was told to replay from checkpoint 1");
    assertEquals(1, position.get());
    // kafka had pre-committed r2: it must be aborted too.
    assertTrue(kafka.history().contains("abort " + kafkaTxn(1, 1)), kafka.history().toString());
    assertEquals(CoordinatorState.RUNNING, c.state());

    write(ok, od, position, "r2");
    Checkpoint cp = c.checkpoint();
    assertEquals(3, cp.id(), "a failed checkpoint's id is not reused");
    cp.awaitCommitted(WAIT);
    assertEquals(List.of("r1", "r2"), kafka.committedRecords());
    assertEquals(List.of("r1", "r2"), db.committedRecords());
    assertTrue(listener.events.contains("failed 2"));
  }

  @Test
  void aParticipantFencedAtPreCommitStopsTheCoordinatorAndItsCheckpointIsAbortedEverywhere() {
    InMemoryParticipant<String> k = participant(kafka);
    InMemoryParticipant<String> d = participant(db);
    Coordinator c = start(CoordinatorConfig.custom(), k, d);
    Output<String> ok = c.output(k);
    Output<String> od = c.output(d);
    write(ok, od, position, "r1");
    c.checkpoint().awaitCommitted(WAIT);
    write(ok, od, position, "r2");
    d.failNextPreCommit(new FencedException("a newer owner took the database's transactions over"));
    FencedException e = assertThrows(FencedException.class, c::checkpoint);
    assertTrue(e.getMessage().contains("newer owner"), e.getMessage());
    assertEquals(CoordinatorState.FAILED, c.state());
    // Nothing of checkpoint 2 was appended, so nothing of it can be decided: kafka's pre-committed
    // transaction and db's current one are aborted now, not left for the next owner's start-up.
    assertTrue(kafka.history().contains("abort " + kafkaTxn(1, 1)), kafka.history().toString());
    assertEquals(Set.of(), kafka.openTransactions(), "nothing of kafka left open");
    assertEquals(Set.of(), db.openTransactions(), "nothing of db left open");
    assertEquals(List.of("state job 0", "state job 1"),
        log.appends().stream().filter(a -> a.startsWith("state")).toList(), "checkpoint 2 was never appended");
    assertEquals(List.of("r1"), kafka.committedRecords());
    assertEquals(List.of("r1"), db.committedRecords());
  }

  @Test
  void aFatalFailureAfterTheNextTransactionsBeganAbortsThemToo() {
    InMemoryParticipant<String> k = participant(kafka);
    boolean[] failSnapshot = {false};
    Coordinator c = Coordinator.builder("job", log)
        .config(CoordinatorConfig.custom().clock(clock).ticker(clock).build())
        .participant("kafka", k)
        .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> {
          if (failSnapshot[0]) {
            throw new FatalTwoPhaseException("the application cannot say where it is");
          }
          return position.get();
        }, (p, id) -> position.set(p)))
        .build();
    toClose.add(c);
    c.output(k).write("r1");
    c.checkpoint().awaitCommitted(WAIT);
    c.output(k).write("r2");
    failSnapshot[0] = true; // fails after the pre-commits and after the next transactions began
    assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    assertEquals(CoordinatorState.FAILED, c.state());
    assertTrue(kafka.history().contains("abort " + kafkaTxn(1, 1)), "the pre-committed r2: " + kafka.history());
    assertTrue(kafka.history().contains("abort " + kafkaTxn(1, 2)), "the next transaction: " + kafka.history());
    assertEquals(Set.of(), kafka.openTransactions());
    assertEquals(List.of("r1"), kafka.committedRecords());
  }

  @Test
  void anOwnerFencedAtItsAppendAbortsTheCheckpointItCouldNotDecide() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator zombie = start(CoordinatorConfig.custom(), k);
    zombie.output(k).write("r1");
    zombie.checkpoint().awaitCommitted(WAIT);
    zombie.output(k).write("r2");
    log = log.reopen(); // another owner claims the log: the zombie's next append is refused
    assertThrows(FencedException.class, zombie::checkpoint);
    assertEquals(CoordinatorState.FAILED, zombie.state());
    assertTrue(kafka.history().contains("abort " + kafkaTxn(1, 1)), "the pre-committed r2 is aborted: "
        + kafka.history());
    assertEquals(Set.of(), kafka.openTransactions(), "and the transaction begun after it");
    assertEquals(List.of("r1"), kafka.committedRecords());
  }

  @Test
  void recoveryCommitsDecidedAbortsOpenAndRestoresTheApplication() {
    InMemoryParticipant<String> k = participant(kafka);
    InMemoryParticipant<String> d = participant(db);
    k.failNextCommits(1000, new IOException("broker unreachable")); // decided but never committed here
    Coordinator c = start(CoordinatorConfig.custom().closeTimeout(Duration.ZERO), k, d);
    Output<String> ok = c.output(k);
    Output<String> od = c.output(d);
    write(ok, od, position, "r1");
    c.checkpoint();
    write(ok, od, position, "r2"); // open, never decided
    assertEquals(List.of(), kafka.committedRecords());
    // "crash": a new owner of the log while the old instance is abandoned.
    log = log.reopen();
    position.set(0);
    restores.clear();
    InMemoryParticipant<String> k2 = participant(kafka);
    InMemoryParticipant<String> d2 = participant(db);
    Coordinator again = start(CoordinatorConfig.custom(), k2, d2);
    assertEquals(List.of("r1"), kafka.committedRecords());
    assertEquals(List.of("r1"), db.committedRecords());
    assertEquals(List.of(1L), restores);
    assertEquals(2, again.ownerEpoch());
    assertTrue(kafka.history().contains("recoverAndAbort " + kafkaTxn(1, 1)), kafka.history().toString());
    assertEquals(Set.of(kafkaTxn(2, 0)), kafka.openTransactions());
    assertTrue(listener.recoveries.stream().anyMatch(r -> r.participant().equals("kafka")
        && r.kind() == CoordinatorListener.RecoveryAction.Kind.COMMITTED));
    assertThrows(FencedException.class, c::checkpoint, "the zombie cannot decide anything");
  }

  @Test
  void commitIsRetriedWithBackoffAndNeverDropped() {
    InMemoryParticipant<String> k = participant(kafka);
    k.failNextCommits(3, new IOException("broker away"));
    Coordinator c = start(CoordinatorConfig.custom(), k);
    c.output(k).write("r1");
    Checkpoint first = c.checkpoint();
    c.output(k).write("r2");
    Checkpoint second = c.checkpoint();
    second.awaitCommitted(WAIT);
    assertTrue(first.committed().toCompletableFuture().isDone());
    assertEquals(List.of("r1", "r2"), kafka.committedRecords(), "creation order kept across retries");
    assertEquals(3, listener.retries.size());
    assertEquals(List.of(1, 2, 3), listener.retries.stream().map(CoordinatorListener.CommitRetry::attempt).toList());
    assertEquals(List.of(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4)),
        listener.retries.stream().map(CoordinatorListener.CommitRetry::backoff).toList());
  }

  @Test
  void maybeCheckpointByRecordCountAndByInterval() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom().checkpointEveryRecords(3).checkpointInterval(Duration.ofSeconds(10)), k);
    Output<String> out = c.output(k);
    out.write("a");
    out.write("b");
    assertEquals(Optional.empty(), c.maybeCheckpoint());
    out.write("c");
    assertEquals(1, c.maybeCheckpoint().orElseThrow().id());
    out.write("d");
    assertEquals(Optional.empty(), c.maybeCheckpoint());
    clock.advance(10_000);
    Checkpoint byTime = c.maybeCheckpoint().orElseThrow();
    assertEquals(2, byTime.id());
    byTime.awaitCommitted(WAIT);
    assertEquals(List.of("a", "b", "c", "d"), kafka.committedRecords());
  }

  @Test
  void finishFlushesIntoTheLastCheckpointAndRefusesWrites() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    Output<String> out = c.output(k);
    out.write("a");
    Checkpoint last = c.finish();
    last.awaitCommitted(WAIT);
    assertEquals(CoordinatorState.FINISHED, c.state());
    assertEquals(List.of("a"), kafka.committedRecords());
    assertThrows(IllegalStateTransitionException.class, () -> out.write("b"));
    assertThrows(IllegalStateTransitionException.class, c::finish);
    assertEquals(1, kafka.history().stream().filter(h -> h.startsWith("begin ")).count());
    c.close();
    assertEquals(Set.of(), kafka.openTransactions());
  }

  @Test
  void lostTransactionStopsTheCoordinatorWithCheckpointAndHandle() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    c.output(k).write("a");
    k.loseOnNextCommit();
    Checkpoint cp = c.checkpoint();
    TransactionLostException e = assertThrows(TransactionLostException.class, () -> cp.awaitCommitted(WAIT));
    assertEquals(1, e.checkpointId().getAsLong());
    assertEquals("kafka", e.participant().orElseThrow());
    assertTrue(e.getMessage().contains(kafkaTxn(1, 0)), e.getMessage());
    assertEquals(CoordinatorState.FAILED, c.state());
    FatalTwoPhaseException refused = assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    assertTrue(refused.getMessage().contains("can no longer be committed"), refused.getMessage());
  }

  @Test
  void lostTransactionOlderThanTimeoutIsDroppedOnlyWhenOptedIn() {
    InMemoryParticipant<String> k = participant(kafka);
    CoordinatorConfig.Builder config = CoordinatorConfig.custom()
        .transactionTimeout(Duration.ofSeconds(60)).ignoreFailuresAfterTransactionTimeout();
    Coordinator c = start(config, k);
    c.output(k).write("a");
    clock.advance(61_000);
    k.loseOnNextCommit();
    c.checkpoint().awaitCommitted(WAIT);
    assertEquals(CoordinatorState.RUNNING, c.state());
    assertEquals(List.of(), kafka.committedRecords());
    assertTrue(listener.recoveries.stream().anyMatch(r -> r.kind() == CoordinatorListener.RecoveryAction.Kind.LOST_IGNORED));
  }

  @Test
  void recoveryRefusesALogWithAParticipantThatIsNotConfigured() {
    Coordinator c = start(CoordinatorConfig.custom(), participant(kafka), participant(db));
    c.close();
    log = log.reopen();
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> start(CoordinatorConfig.custom(), participant(kafka)));
    assertTrue(e.getMessage().contains("[db]"), e.getMessage());
  }

  @Test
  void secondCoordinatorWithTheSameIdIsRefused() {
    start(CoordinatorConfig.custom(), participant(kafka));
    FencedException e = assertThrows(FencedException.class, () -> start(CoordinatorConfig.custom(), participant(kafka)));
    assertTrue(e.getMessage().contains("'job'"), e.getMessage());
  }

  @Test
  void badRecordsFailClearlyAndTheTransactionStaysUsable() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    Output<String> out = c.output(k);
    NullPointerException npe = assertThrows(NullPointerException.class, () -> out.write(null));
    assertTrue(npe.getMessage().contains("'kafka'"), npe.getMessage());
    k.failNextWrite(new IOException("record too large"));
    TwoPhaseException e = assertThrows(TwoPhaseException.class, () -> out.write("huge"));
    assertEquals("kafka", e.participant().orElseThrow());
    assertEquals(1, e.checkpointId().getAsLong());
    out.write("fine");
    c.checkpoint().awaitCommitted(WAIT);
    assertEquals(List.of("fine"), kafka.committedRecords());
  }

  @Test
  void closeWaitsForCommitsAndAbortsTheOpenTransaction() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = builder(CoordinatorConfig.custom(), k).build();
    c.output(k).write("a");
    c.checkpoint();
    c.output(k).write("b");
    c.close();
    assertEquals(List.of("a"), kafka.committedRecords());
    assertEquals(Set.of(), kafka.openTransactions());
    assertEquals(CoordinatorState.CLOSED, c.state());
    c.close(); // idempotent
  }

  @Test
  void stateRecordNamesEveryHandleAndTheApplicationSnapshot() throws Exception {
    InMemoryParticipant<String> k = participant(kafka);
    k.failNextCommits(1000, new IOException("away"));
    Coordinator c = start(CoordinatorConfig.custom().closeTimeout(Duration.ZERO), k);
    c.output(k).write("a");
    position.set(7);
    c.checkpoint();
    InMemoryStateLog reader = log.reopen();
    StoredState stored = reader.open("job").lastState();
    StateCodec.CoordinatorRecord record = StateCodec.decode(stored.payload(), "test");
    assertEquals(1, record.checkpointId());
    StateCodec.ParticipantRecord p = record.participants().get(0);
    assertEquals("kafka", p.name());
    assertEquals(1, p.pending().size());
    assertEquals(1, p.pending().get(0).checkpointId());
    assertEquals(2, p.current().checkpointId());
    assertEquals("7", new String(record.application().bytes(), java.nio.charset.StandardCharsets.UTF_8));
    assertFalse(record.finished());
    assertNull(p.context());
  }

  @Test
  void listenerFailuresDoNotChangeTheOutcome() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = Coordinator.builder("job", log)
        .participant("kafka", k)
        .listener(new CoordinatorListener() {
          @Override
          public void onCheckpointDecided(String coordinatorId, long checkpointId, Duration took) {
            throw new IllegalStateException("metrics backend down");
          }
        })
        .build();
    toClose.add(c);
    c.output(k).write("a");
    c.checkpoint().awaitCommitted(WAIT);
    assertEquals(List.of("a"), kafka.committedRecords());
  }

  @Test
  void invalidConfigurationNamesTheSetting() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CoordinatorConfig.custom().checkpointEveryRecords(0));
    assertTrue(e.getMessage().startsWith("checkpointEveryRecords"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CoordinatorConfig.custom().enableTransactionTimeoutWarnings(1.5));
    assertTrue(e.getMessage().contains("enableTransactionTimeoutWarnings"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CoordinatorConfig.custom().checkpointInterval(Duration.ZERO));
    assertTrue(e.getMessage().startsWith("checkpointInterval"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Coordinator.builder("job", log).build());
    assertTrue(e.getMessage().contains("no participants"), e.getMessage());
    InMemoryParticipant<String> k = participant(kafka);
    e = assertThrows(IllegalArgumentException.class,
        () -> Coordinator.builder("job", log).participant("a", k).participant("a", participant(db)).build());
    assertTrue(e.getMessage().contains("'a' is used twice"), e.getMessage());
  }

  @Test
  void retryEventsNameTheHandleAndOldTransactionsAreRetriedNotDroppedWhileRunning() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom().transactionTimeout(Duration.ofSeconds(1))
        .ignoreFailuresAfterTransactionTimeout(), k);
    c.output(k).write("a");
    clock.advance(5_000); // older than its timeout; a running coordinator still retries it
    k.failNextCommits(2, new IOException("broker away"));
    c.checkpoint().awaitCommitted(WAIT);
    assertEquals(List.of("a"), kafka.committedRecords());
    assertEquals(2, listener.retries.size());
    assertTrue(listener.retries.get(0).handle().contains(kafkaTxn(1, 0)), listener.retries.get(0).handle());
    assertEquals("kafka", listener.retries.get(0).participant());
  }

  @Test
  void droppedTransactionIsReportedOnceDuringRecovery() {
    InMemoryParticipant<String> k = participant(kafka);
    k.failNextCommits(1000, new IOException("away"));
    Coordinator c = start(CoordinatorConfig.custom().closeTimeout(Duration.ZERO), k);
    c.output(k).write("a");
    c.checkpoint();
    log = log.reopen();
    clock.advance(61_000);
    InMemoryParticipant<String> failing = participant(kafka);
    failing.failNextCommits(1, new IOException("still away"));
    start(CoordinatorConfig.custom().transactionTimeout(Duration.ofSeconds(60)).ignoreFailuresAfterTransactionTimeout(), failing);
    assertEquals(1, listener.recoveries.stream()
        .filter(r -> r.kind() == CoordinatorListener.RecoveryAction.Kind.LOST_IGNORED).count(), listener.events.toString());
  }

  @Test
  void fatalErrorsOfParticipantsStayFatal() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator c = start(CoordinatorConfig.custom(), k);
    k.failNextBegin(new IOException("cannot begin"));
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    assertTrue(e.getMessage().contains("could not be begun"), e.getMessage());
    assertEquals(CoordinatorState.FAILED, c.state());
    c.close();

    log = log.reopen();
    InMemoryParticipant<String> fenced = participant(kafka);
    fenced.failNextFinishRecoveringContext(new FencedException("newer owner"));
    assertThrows(FencedException.class, () -> start(CoordinatorConfig.custom(), fenced));
  }

  @Test
  void waitersLearnWhenTheCoordinatorFailsBeforeTheirCommit() {
    InMemoryParticipant<String> k = participant(kafka);
    k.failNextCommits(1000, new IOException("away"));
    Coordinator c = start(CoordinatorConfig.custom().closeTimeout(Duration.ZERO), k);
    c.output(k).write("a");
    Checkpoint first = c.checkpoint();
    log.failNextAppend(new TwoPhaseException("disk full"));
    assertThrows(FatalTwoPhaseException.class, c::checkpoint);
    TwoPhaseException e = assertThrows(TwoPhaseException.class, () -> first.awaitCommitted(WAIT));
    assertTrue(e.getMessage().contains("may or may not be durable"), e.getMessage());
  }

  @Test
  void recordCountIsPerParticipantSoFanOutCountsInputRecords() {
    InMemoryParticipant<String> k = participant(kafka);
    InMemoryParticipant<String> d = participant(db);
    Coordinator c = start(CoordinatorConfig.custom().checkpointEveryRecords(2), k, d);
    Output<String> ok = c.output(k);
    Output<String> od = c.output(d);
    write(ok, od, position, "a");
    assertEquals(Optional.empty(), c.maybeCheckpoint(), "two writes, but one input record");
    write(ok, od, position, "b");
    assertEquals(1, c.maybeCheckpoint().orElseThrow().id());
    ok.write("only-kafka-1");
    ok.write("only-kafka-2");
    assertEquals(2, c.maybeCheckpoint().orElseThrow().id(), "the busiest participant decides");
  }

  /**
   * A coordinator closed and built again on a log that stayed open runs under the same log owner:
   * it still gets an epoch of its own, or its transaction names would repeat the first
   * incarnation's (and a file participant's commit would rename over committed files).
   */
  @Test
  void aCoordinatorBuiltAgainOnAnOpenLogGetsANewEpochAndNewNames() {
    InMemoryParticipant<String> k = participant(kafka);
    Coordinator first = builder(CoordinatorConfig.custom(), k).build();
    first.output(k).write("a");
    first.checkpoint().awaitCommitted(WAIT);
    long epoch = first.ownerEpoch();
    first.close();
    InMemoryParticipant<String> k2 = participant(kafka);
    Coordinator second = start(CoordinatorConfig.custom(), k2);
    assertTrue(second.ownerEpoch() > epoch, second.ownerEpoch() + " > " + epoch);
    second.output(k2).write("b");
    second.checkpoint().awaitCommitted(WAIT);
    assertEquals(List.of("a", "b"), kafka.committedRecords());
  }
}
