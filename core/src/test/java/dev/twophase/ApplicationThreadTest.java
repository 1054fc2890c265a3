package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Writes, checkpoints and finish belong to one application thread. A checkpoint taken from a timer
 * thread while the application writes would pre-commit a transaction that still takes records (one
 * accepted record would be lost): it is refused before it changes anything.
 */
class ApplicationThreadTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();

  private static Throwable onOtherThread(Runnable call) throws InterruptedException {
    try {
      CompletableFuture.runAsync(call).get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  private static Throwable assertThrowsOnThisThread(Runnable call) {
    try {
      call.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Test
  void aCheckpointFromAnotherThreadIsRefusedAndNothingIsLost() throws Exception {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = Coordinator.builder("job", new InMemoryStateLog()).participant("sink", sink).build()) {
      Output<String> out = c.output(sink);
      out.write("a");
      Throwable refused = onOtherThread(c::checkpoint);
      assertTrue(refused instanceof IllegalStateException, String.valueOf(refused));
      assertTrue(refused.getMessage().contains("application thread"), refused.getMessage());
      assertTrue(refused.getMessage().contains("Nothing was done"), refused.getMessage());
      assertEquals(0, c.lastCheckpointId());
      out.write("b");
      c.checkpoint().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of("a", "b"), resource.committedRecords());
    }
  }

  @Test
  void writesFinishAndCurrentTransactionFromAnotherThreadAreRefused() throws Exception {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = Coordinator.builder("job", new InMemoryStateLog()).participant("sink", sink).build()) {
      Output<String> out = c.output(sink);
      out.write("a"); // binds this thread
      assertTrue(onOtherThread(() -> out.write("x")) instanceof IllegalStateException);
      assertTrue(onOtherThread(c::finish) instanceof IllegalStateException);
      assertTrue(onOtherThread(() -> c.currentTransaction(sink)) instanceof IllegalStateException);
      assertTrue(onOtherThread(c::maybeCheckpoint) instanceof IllegalStateException);
      c.finish().awaitCommitted(Duration.ofSeconds(10));
      assertEquals(List.of("a"), resource.committedRecords());
    }
  }

  @Test
  void theApplicationThreadIsTheFirstThatUsesTheCoordinatorNotTheOneThatBuiltIt() throws Exception {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = Coordinator.builder("job", new InMemoryStateLog()).participant("sink", sink).build()) {
      Output<String> out = c.output(sink);
      Throwable none = onOtherThread(() -> {
        out.write("a");
        c.checkpoint().awaitCommitted(Duration.ofSeconds(10));
      });
      assertEquals(null, none);
      Throwable fromBuilder = assertThrowsOnThisThread(() -> out.write("b"));
      assertTrue(fromBuilder instanceof IllegalStateException, String.valueOf(fromBuilder));
      assertEquals(CoordinatorState.RUNNING, c.state());
      assertEquals(List.of("a"), resource.committedRecords());
    }
  }
}
