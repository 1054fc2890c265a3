package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CoordinatorConfig.WhenPendingFull;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The optional bound on decided checkpoints waiting for their commits. */
class PendingLimitTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();
  private final CountDownLatch commitsMayRun = new CountDownLatch(1);

  /** A participant whose commits wait until the test lets them run. */
  private final DelegatingInMemory sink = new DelegatingInMemory(new InMemoryParticipant<>(resource)) {
    @Override
    public CommitOutcome commit(InMemoryTransaction t) throws Exception {
      if (!commitsMayRun.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("the test never let commits run");
      }
      return super.commit(t);
    }
  };

  private Coordinator coordinator(WhenPendingFull whenFull) {
    return Coordinator.builder("job", log).participant("sink", sink).listener(new DelayListener())
        .config(CoordinatorConfig.custom().maxPendingCheckpoints(1, whenFull).build()).build();
  }

  private final java.util.List<Duration> delays = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final class DelayListener implements CoordinatorListener {
    @Override
    public void onCheckpointDelayed(String coordinatorId, long checkpointId, Duration waited) {
      delays.add(waited);
    }
  }

  @Test
  void failRefusesTheCheckpointAndKeepsTheTransactionOpen() {
    try (Coordinator c = coordinator(WhenPendingFull.FAIL)) {
      Output<String> out = c.output(sink);
      out.write("a");
      Checkpoint first = c.checkpoint(); // pending: 1 of 1
      out.write("b");
      PendingLimitExceededException e = assertThrows(PendingLimitExceededException.class, c::checkpoint);
      assertEquals(2, e.checkpointId().getAsLong());
      assertTrue(e.getMessage().contains("maxPendingCheckpoints"), e.getMessage());
      out.write("c"); // the transaction of checkpoint 2 is still open and takes records
      commitsMayRun.countDown();
      first.awaitCommitted(WAIT);
      Checkpoint second = c.checkpoint();
      assertEquals(2, second.id());
      second.awaitCommitted(WAIT);
      assertEquals(List.of("a", "b", "c"), resource.committedRecords());
    }
  }

  @Test
  void blockWaitsForTheOldestCommitAndReportsTheDelay() throws Exception {
    try (Coordinator c = coordinator(WhenPendingFull.BLOCK)) {
      Output<String> out = c.output(sink);
      out.write("a");
      c.checkpoint();
      out.write("b");
      Thread release = new Thread(() -> {
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        commitsMayRun.countDown();
      });
      release.start();
      Checkpoint second = c.checkpoint(); // waits until checkpoint 1 is committed
      assertEquals(1, delays.size(), "onCheckpointDelayed once");
      assertTrue(delays.get(0).toNanos() > 0);
      second.awaitCommitted(WAIT);
      release.join();
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }
  }

  @Test
  void aBlockedCheckpointGivesUpWhenTheCoordinatorCloses() throws Exception {
    Coordinator c = Coordinator.builder("job", log).participant("sink", sink)
        .config(CoordinatorConfig.custom().maxPendingCheckpoints(1, WhenPendingFull.BLOCK)
            .closeTimeout(Duration.ZERO).build()).build();
    c.output(sink).write("a");
    c.checkpoint();
    Thread closer = new Thread(() -> {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      c.close();
    });
    closer.start();
    TwoPhaseException e = assertThrows(TwoPhaseException.class, c::checkpoint);
    assertTrue(e.getMessage().contains("closed while checkpoint 2 waited"), e.getMessage());
    commitsMayRun.countDown();
    closer.join();
  }

  @Test
  void participantsSeeTheBound() {
    ParticipantContext[] seen = new ParticipantContext[1];
    DelegatingInMemory probe = new DelegatingInMemory(new InMemoryParticipant<>(resource)) {
      @Override
      public InMemoryTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
        seen[0] = context;
        return super.beginTransaction(context);
      }
    };
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", probe)
        .config(CoordinatorConfig.custom().maxPendingCheckpoints(3, WhenPendingFull.BLOCK).build()).build()) {
      assertEquals(3, seen[0].maxPendingCheckpoints());
    }
  }

  @Test
  void anEmbeddedCoordinatorCannotBlock() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> EmbeddedCoordinator.builder("job")
            .config(CoordinatorConfig.custom().maxPendingCheckpoints(1, WhenPendingFull.BLOCK).build()));
    assertTrue(e.getMessage().contains("WhenPendingFull.FAIL"), e.getMessage());
  }
}
