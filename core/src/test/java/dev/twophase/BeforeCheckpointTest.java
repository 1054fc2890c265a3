package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The application's beforeCheckpoint hook writes what it still holds into the checkpoint's
 * transactions: running totals kept in memory and written once per checkpoint.
 */
class BeforeCheckpointTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();
  private final InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
  private final Map<String, Integer> totals = new TreeMap<>();
  private final List<Long> calls = new CopyOnWriteArrayList<>();

  private Coordinator start(CoordinatorConfig config) {
    Coordinator[] c = new Coordinator[1];
    c[0] = Coordinator.builder("totals", log).participant("sink", sink).config(config)
        .beforeCheckpoint(id -> {
          calls.add(id);
          Output<String> out = c[0].output(sink);
          totals.forEach((k, v) -> out.write(k + "=" + v));
          totals.clear();
        })
        .build();
    return c[0];
  }

  private void add(String key) {
    totals.merge(key, 1, Integer::sum);
  }

  @Test
  void whatTheHookWritesIsPartOfTheCheckpoint() {
    try (Coordinator c = start(CoordinatorConfig.ofDefaults())) {
      add("a");
      add("a");
      add("b");
      c.checkpoint().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of("a=2", "b=1"), resource.committedRecords());
      assertEquals(List.of(1L), calls);
    }
  }

  @Test
  void aCheckpointThatMaybeCheckpointTakesCallsItToo() {
    try (Coordinator c = start(CoordinatorConfig.custom().checkpointEveryRecords(2).build())) {
      c.output(sink).write("raw-1");
      assertTrue(c.maybeCheckpoint().isEmpty());
      assertEquals(List.of(), calls, "not called when no checkpoint is taken");
      add("x");
      c.output(sink).write("raw-2");
      c.maybeCheckpoint().orElseThrow().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of(1L), calls);
      assertEquals(List.of("raw-1", "raw-2", "x=1"), resource.committedRecords());
    }
  }

  @Test
  void aFailingHookFailsTheCheckpointAndTheCoordinatorGoesOn() {
    Coordinator[] c = new Coordinator[1];
    boolean[] fail = {true};
    c[0] = Coordinator.builder("totals", log).participant("sink", sink)
        .beforeCheckpoint(id -> {
          if (fail[0]) {
            throw new IOException("planned: the totals could not be read");
          }
        })
        .build();
    try (Coordinator coordinator = c[0]) {
      coordinator.output(sink).write("lost with the checkpoint");
      CheckpointFailedException e = assertThrows(CheckpointFailedException.class, coordinator::checkpoint);
      assertTrue(e.getMessage().contains("beforeCheckpoint hook failed"), e.getMessage());
      assertTrue(e.getMessage().contains("planned: the totals could not be read"), e.getMessage());
      assertEquals(1, e.checkpointId().orElseThrow());
      assertEquals(List.of(), resource.openTransactions().stream()
          .filter(name -> !name.equals(coordinator.currentTransaction(sink).name())).toList(),
          "the failed checkpoint's transaction was aborted");
      fail[0] = false;
      coordinator.output(sink).write("again");
      coordinator.checkpoint().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of("again"), resource.committedRecords());
    }
  }

  @Test
  void theCheckpointAfterFinishDoesNotCallIt() {
    try (Coordinator c = start(CoordinatorConfig.ofDefaults())) {
      add("a");
      c.checkpoint();
      add("late");
      c.finish().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of(1L), calls, "finish() leaves the last writes to the application");
      assertEquals(List.of("a=1"), resource.committedRecords());
    }
  }

  @Test
  void anEmbeddedCoordinatorsSnapshotCallsIt() {
    EmbeddedCoordinator[] c = new EmbeddedCoordinator[1];
    c[0] = EmbeddedCoordinator.builder("totals").participant("sink", sink)
        .beforeCheckpoint(id -> {
          calls.add(id);
          c[0].output(sink).write("at " + id);
        })
        .build();
    c[0].snapshot(7);
    c[0].notifyCheckpointComplete(7);
    assertEquals(List.of(7L), calls);
    assertEquals(List.of("at 7"), resource.committedRecords());
    c[0].close();
  }
}
