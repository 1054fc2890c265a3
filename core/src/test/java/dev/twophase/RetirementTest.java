package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A {@link RetirementListener} learns that a handle can no longer be committed again once a later
 * durable state record no longer holds it, and at start-up that nothing of earlier incarnations
 * will be.
 */
class RetirementTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();

  /** Records what it is told. */
  private static class Listening extends DelegatingInMemory implements RetirementListener<InMemoryTransaction> {
    final List<String> retired = new CopyOnWriteArrayList<>();
    final List<Long> earlierThan = new CopyOnWriteArrayList<>();

    Listening(InMemoryResource<String> resource) {
      super(new InMemoryParticipant<>(resource));
    }

    @Override
    public void onRetired(List<InMemoryTransaction> transactions) {
      transactions.forEach(t -> retired.add(t.name()));
    }

    @Override
    public void onEarlierIncarnationsRetired(ParticipantContext context) {
      earlierThan.add(context.ownerEpoch());
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + WAIT);
      }
      Thread.sleep(1);
    }
  }

  @Test
  void aHandleIsRetiredOnceALaterDurableRecordNoLongerHoldsIt() throws Exception {
    Listening sink = new Listening(resource);
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", sink).build()) {
      assertEquals(List.of(c.ownerEpoch()), sink.earlierThan, "at start-up, after the start-up record");
      Output<String> out = c.output(sink);
      List<String> names = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        names.add(c.currentTransaction(sink).name());
        out.write("r" + i);
        c.checkpoint().awaitCommitted(WAIT);
      }
      // Checkpoint 1 was committed before checkpoint 2's record, which no longer held it; likewise
      // 2 before 3's. Checkpoint 3 is still held by the latest record: not retired.
      waitFor(() -> sink.retired.size() == 2);
      assertEquals(names.subList(0, 2), sink.retired);
    }
  }

  @Test
  void nothingIsRetiredWhileARecordStillHoldsIt() throws Exception {
    Listening sink = new Listening(resource);
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", sink).build()) {
      c.output(sink).write("a");
      c.checkpoint().awaitCommitted(WAIT);
    } // close() waits for the committer, which would have retired it
    assertTrue(sink.retired.isEmpty(), "checkpoint 1 is still held by the latest record: " + sink.retired);
  }

  @Test
  void aFailingListenerChangesNothing() throws Exception {
    Listening sink = new Listening(resource) {
      @Override
      public void onRetired(List<InMemoryTransaction> transactions) {
        throw new IllegalStateException("marker table away");
      }
    };
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", sink).build()) {
      Output<String> out = c.output(sink);
      for (int i = 0; i < 3; i++) {
        out.write("r" + i);
        c.checkpoint().awaitCommitted(WAIT);
      }
      assertEquals(CoordinatorState.RUNNING, c.state());
    }
    assertEquals(List.of("r0", "r1", "r2"), resource.committedRecords());
  }

  @Test
  void theEmbeddedCoordinatorNeverRetires() {
    Listening sink = new Listening(resource);
    try (EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", sink).build()) {
      for (int i = 1; i <= 3; i++) {
        c.output(sink).write("r" + i);
        c.snapshot(i);
        c.notifyCheckpointComplete(i);
      }
    }
    assertTrue(sink.retired.isEmpty());
    assertTrue(sink.earlierThan.isEmpty());
  }
}
