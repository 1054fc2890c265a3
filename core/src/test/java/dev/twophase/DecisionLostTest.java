package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A state log that lost a decision (its latest record damaged and cut, or restored from an old
 * backup): recovery is about to abort a transaction the resource shows committed. It must stop
 * before the application is restored to the older position, because the replay would write the
 * records of the lost checkpoint a second time.
 */
class DecisionLostTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ForgetfulStateLog log = new ForgetfulStateLog();
  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final AtomicLong position = new AtomicLong();
  private final List<Long> restores = new ArrayList<>();
  private final RecordingListener listener = new RecordingListener();

  private Coordinator.Builder builder(InMemoryParticipant<String> participant, CoordinatorConfig config) {
    return Coordinator.builder("job", log)
        .participant("sink", participant)
        .config(config)
        .listener(listener)
        .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> position.get(), (p, id) -> {
          position.set(p);
          restores.add(p);
        }));
  }

  /** Two committed checkpoints; then the log forgets the second decision. */
  private void twoCommittedCheckpointsAndTheLogForgetsTheSecond() {
    InMemoryParticipant<String> first = new InMemoryParticipant<>(resource);
    Coordinator c = builder(first, CoordinatorConfig.ofDefaults()).build();
    Output<String> out = c.output(first);
    out.write("a");
    position.set(1);
    c.checkpoint().awaitCommitted(WAIT);
    out.write("b");
    position.set(2);
    c.checkpoint().awaitCommitted(WAIT);
    // The process dies (no close: nothing is aborted), and the log loses the record of checkpoint 2,
    // which named checkpoint 2's transaction as committed; checkpoint 1's record named it open.
    log.restart();
    log.forgetLatest("job");
    assertEquals(List.of("a", "b"), resource.committedRecords());
  }

  @Test
  void startUpStopsBeforeRestoringTheApplicationAndReleasesEverything() {
    twoCommittedCheckpointsAndTheLogForgetsTheSecond();
    InMemoryParticipant<String> second = new InMemoryParticipant<>(resource);
    DecisionLostException e = assertThrows(DecisionLostException.class,
        () -> builder(second, CoordinatorConfig.ofDefaults()).build());
    assertEquals("sink", e.participant().orElseThrow());
    assertEquals(2, e.checkpointId().getAsLong(), "the checkpoint the aborted transaction was begun for");
    assertTrue(e.getMessage().contains("lost a later decision"), e.getMessage());
    assertTrue(e.getMessage().contains("continueAfterLostDecision"), e.getMessage());
    assertEquals(List.of(), restores, "the application must not be sent back to the older position");
    assertEquals(List.of("a", "b"), resource.committedRecords(), "the committed transaction stays");
    assertTrue(resource.openTransactions().stream().noneMatch(n -> n.startsWith("job-sink-forget01-2-")),
        "nothing begun by the stopped start-up: " + resource.openTransactions());
    // Nothing stays claimed: the coordinator id can be opened again.
    log.open("job").close();
  }

  @Test
  void theOperatorMayChooseToCarryOnAndReplay() {
    twoCommittedCheckpointsAndTheLogForgetsTheSecond();
    InMemoryParticipant<String> second = new InMemoryParticipant<>(resource);
    try (Coordinator c = builder(second, CoordinatorConfig.custom().continueAfterLostDecision().build()).build()) {
      assertEquals(List.of(1L), restores, "resumes from the position the log holds");
      assertTrue(listener.recoveries.stream().anyMatch(r -> r.kind() == RecoveryAction.Kind.FOUND_COMMITTED),
          listener.recoveries.toString());
      assertEquals(1, c.lastCheckpointId());
      Output<String> out = c.output(second);
      out.write("b"); // the replay writes it again: the duplicate the operator accepted
      c.checkpoint().awaitCommitted(WAIT);
    }
    assertEquals(List.of("a", "b", "b"), resource.committedRecords());
  }

  @Test
  void anEmbeddedCoordinatorRestoredFromAnOlderCheckpointStopsToo() {
    InMemoryParticipant<String> first = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", first).build();
    c.output(first).write("a");
    byte[] older = c.snapshot(1);
    c.notifyCheckpointComplete(1);
    c.output(first).write("b");
    c.snapshot(2);
    c.notifyCheckpointComplete(2);

    DecisionLostException e = assertThrows(DecisionLostException.class,
        () -> EmbeddedCoordinator.builder("job").participant("sink", new InMemoryParticipant<>(resource))
            .restoreFrom(older).build());
    assertEquals(2, e.checkpointId().getAsLong());
    assertEquals(List.of("a", "b"), resource.committedRecords());
  }
}
