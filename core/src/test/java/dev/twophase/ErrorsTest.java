package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An {@link Error} thrown by a participant (a StackOverflowError in its commit, say) is handled as
 * carefully as an exception: it is reported, never swallowed, and no path keeps the coordinator id
 * claimed on the log.
 */
class ErrorsTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();

  /** An in-memory participant that throws {@code error} from one operation. */
  private static final class Throwing extends DelegatingInMemory {
    final String operation;
    final Error error;

    Throwing(InMemoryResource<String> resource, String operation, Error error) {
      super(new InMemoryParticipant<>(resource));
      this.operation = operation;
      this.error = error;
    }

    @Override
    public InMemoryTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
      if (operation.equals("begin")) {
        throw error;
      }
      return super.beginTransaction(context);
    }

    @Override
    public CommitOutcome commit(InMemoryTransaction transaction) throws Exception {
      if (operation.equals("commit")) {
        throw error;
      }
      return super.commit(transaction);
    }

    @Override
    public void abort(InMemoryTransaction transaction) throws Exception {
      if (operation.equals("abort")) {
        throw error;
      }
      super.abort(transaction);
    }

    @Override
    public void close() {
      super.close();
      if (operation.equals("close")) {
        throw error;
      }
    }
  }

  @Test
  void anErrorFromCommitStopsTheCoordinatorAndReachesTheWaiters() {
    StackOverflowError soe = new StackOverflowError("deep");
    Throwing sink = new Throwing(resource, "commit", soe);
    Coordinator c = Coordinator.builder("job", log).participant("sink", sink).build();
    c.output(sink).write("a");
    Checkpoint cp = c.checkpoint();
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> cp.awaitCommitted(Duration.ofSeconds(10)));
    assertSame(soe, e.getCause());
    assertTrue(e.getMessage().contains("StackOverflowError"), e.getMessage());
    assertEquals(CoordinatorState.FAILED, c.state());
    c.close();
    // The decision is in the log: a new coordinator commits it.
    InMemoryParticipant<String> again = new InMemoryParticipant<>(resource);
    Coordinator.builder("job", log.reopen()).participant("sink", again).build().close();
    assertEquals(List.of("a"), resource.committedRecords());
  }

  @Test
  void anErrorFromBeginDuringBuildReleasesTheCoordinatorId() {
    OutOfMemoryError oom = new OutOfMemoryError("test");
    Throwing sink = new Throwing(resource, "begin", oom);
    Error thrown = assertThrows(Error.class, () -> Coordinator.builder("job", log).participant("sink", sink).build());
    assertSame(oom, thrown);
    // Same id, same log: not fenced.
    Coordinator.builder("job", log).participant("sink", new InMemoryParticipant<>(resource)).build().close();
  }

  @Test
  void anErrorFromAbortOrCloseDuringCloseStillReleasesTheCoordinatorId() {
    for (String operation : List.of("abort", "close")) {
      AssertionError error = new AssertionError("from " + operation);
      Throwing sink = new Throwing(resource, operation, error);
      Coordinator c = Coordinator.builder("job", log).participant("sink", sink).build();
      Error thrown = assertThrows(Error.class, c::close);
      assertSame(error, thrown, operation);
      assertEquals(CoordinatorState.CLOSED, c.state(), operation);
      Coordinator.builder("job", log).participant("sink", new InMemoryParticipant<>(resource)).build().close();
    }
  }

  @Test
  void anErrorFromAnEmbeddedCommitFailsTheCoordinatorAndIsRethrown() {
    StackOverflowError soe = new StackOverflowError("deep");
    Throwing sink = new Throwing(resource, "commit", soe);
    EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", sink).build();
    c.snapshot(1);
    assertSame(soe, assertThrows(StackOverflowError.class, () -> c.notifyCheckpointComplete(1)));
    assertEquals(CoordinatorState.FAILED, c.state());
    c.close();
  }
}
