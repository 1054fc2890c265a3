package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Time and scheduling are injected (ticker, scheduler), so backoff and intervals are tested without
 * waiting; and the committer's end of life: retries after close(), close() called from a commit.
 */
class CommitSchedulingTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();
  private final RecordingListener listener = new RecordingListener();

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
  void retriesBackOffExponentiallyUpToTheMaximumWithoutRealTime() throws Exception {
    ManualScheduler scheduler = new ManualScheduler();
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    sink.failNextCommits(4, new IOException("away"));
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", sink).listener(listener)
        .config(CoordinatorConfig.custom().scheduler(scheduler)
            .commitRetryBackoff(Duration.ofMillis(100), Duration.ofMillis(500), 2).build())
        .build()) {
      c.output(sink).write("a");
      Checkpoint cp = c.checkpoint();
      for (int attempt = 1; attempt <= 4; attempt++) {
        int expected = attempt;
        waitFor(() -> scheduler.waiting() == 1 && listener.retries.size() == expected);
        scheduler.runAll();
      }
      cp.awaitCommitted(WAIT);
      assertEquals(List.of(100L, 200L, 400L, 500L),
          listener.retries.stream().map(r -> r.backoff().toMillis()).toList());
      assertEquals(List.of("a"), resource.committedRecords());
    }
  }

  @Test
  void aRetryDueAfterCloseDoesNotRunAndIsNotReportedAsScheduled() throws Exception {
    ManualScheduler scheduler = new ManualScheduler();
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    sink.failNextCommits(1, new IOException("away"));
    Coordinator c = Coordinator.builder("job", log).participant("sink", sink).listener(listener)
        .config(CoordinatorConfig.custom().scheduler(scheduler).closeTimeout(Duration.ZERO).build())
        .build();
    c.output(sink).write("a");
    c.checkpoint();
    waitFor(() -> scheduler.waiting() == 1 && listener.retries.size() == 1); // scheduled, then reported
    c.close();
    scheduler.runAll(); // the retry falls due after close: rejected, logged, nothing thrown
    assertEquals(1, listener.retries.size());
    assertEquals(List.of(), resource.committedRecords(), "no commit after close");
    // The decision stays in the log: the next start commits it.
    Coordinator.builder("job", log.reopen()).participant("sink", new InMemoryParticipant<>(resource)).build().close();
    assertEquals(List.of("a"), resource.committedRecords());
  }

  @Test
  void closeCalledFromACommitIsRefusedInsteadOfWaitingForItself() throws Exception {
    AtomicReference<Coordinator> coordinator = new AtomicReference<>();
    AtomicReference<RuntimeException> fromClose = new AtomicReference<>();
    DelegatingInMemory sink = new DelegatingInMemory(new InMemoryParticipant<>(resource)) {
      @Override
      public CommitOutcome commit(InMemoryTransaction t) throws Exception {
        if (fromClose.get() == null) {
          try {
            coordinator.get().close();
          } catch (RuntimeException e) {
            fromClose.set(e);
          }
        }
        return super.commit(t);
      }
    };
    Coordinator c = Coordinator.builder("job", log).participant("sink", sink)
        .config(CoordinatorConfig.custom().closeTimeout(Duration.ofMinutes(5)).build()).build();
    coordinator.set(c);
    c.output(sink).write("a");
    c.checkpoint().awaitCommitted(WAIT);
    assertTrue(fromClose.get() instanceof IllegalStateException, String.valueOf(fromClose.get()));
    assertTrue(fromClose.get().getMessage().contains("committer thread"), fromClose.get().getMessage());
    c.close();
    assertEquals(CoordinatorState.CLOSED, c.state());
  }

  @Test
  void theCheckpointIntervalFollowsTheTickerNotTheWallClock() {
    MutableClock wall = new MutableClock(1_000);
    MutableClock ticker = new MutableClock(0);
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", sink)
        .config(CoordinatorConfig.custom().clock(wall).ticker(ticker)
            .checkpointInterval(Duration.ofSeconds(10)).build()).build()) {
      c.output(sink).write("a");
      wall.advance(Duration.ofHours(1).toMillis()); // the wall clock jumps (NTP, a VM resumed)
      assertEquals(Optional.empty(), c.maybeCheckpoint());
      ticker.advance(10_000);
      assertEquals(1, c.maybeCheckpoint().orElseThrow().id());
    }
  }

  /**
   * A fault injector that throws between the durable decision and the commits stops the coordinator
   * as a crash there would: the exception comes out as it is, close() still works, and the next
   * start commits the decided checkpoint.
   */
  @Test
  void anInjectorThatThrowsAfterTheDecisionStopsTheCoordinatorAndTheNextStartCommits() {
    final class Stop extends RuntimeException {}
    boolean[] armed = {true};
    FaultInjector stop = point -> {
      if (armed[0] && point.equals(ProtocolPoint.AFTER_LOG_APPEND.name())) {
        armed[0] = false;
        throw new Stop();
      }
    };
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    Coordinator c = Coordinator.builder("job", log).participant("sink", sink)
        .config(CoordinatorConfig.custom().faultInjector(stop).build()).build();
    c.output(sink).write("a");
    org.junit.jupiter.api.Assertions.assertThrows(Stop.class, c::checkpoint);
    assertEquals(CoordinatorState.FAILED, c.state());
    c.close();
    assertEquals(List.of(), resource.committedRecords());
    Coordinator.builder("job", log.reopen()).participant("sink", new InMemoryParticipant<>(resource)).build().close();
    assertEquals(List.of("a"), resource.committedRecords());
  }
}
