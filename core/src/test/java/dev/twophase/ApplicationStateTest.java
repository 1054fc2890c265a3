package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The application continues from a decided checkpoint at two moments, each with its callback. */
class ApplicationStateTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();
  private final AtomicLong position = new AtomicLong();
  private final List<String> calls = new CopyOnWriteArrayList<>();

  private final ApplicationState<Long> state = new ApplicationState<>() {
    @Override
    public Codec<Long> codec() {
      return Codecs.json(Long.class);
    }

    @Override
    public Long snapshot(long checkpointId) {
      return position.get();
    }

    @Override
    public void restore(Long snapshot, long checkpointId) {
      calls.add("start-up " + snapshot + " of " + checkpointId);
    }

    @Override
    public void restoreAfterFailedCheckpoint(Long snapshot, long checkpointId, long failedCheckpointId) {
      calls.add("after " + failedCheckpointId + " failed: " + snapshot + " of " + checkpointId);
    }
  };

  private Coordinator start(InMemoryParticipant<String> sink, ApplicationState<Long> applicationState) {
    return Coordinator.builder("job", log).participant("sink", sink).applicationState(applicationState).build();
  }

  @Test
  void startUpAndAFailedCheckpointAreToldApart() {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = start(sink, state)) {
      position.set(7);
      c.checkpoint();
      position.set(9);
      sink.failNextPreCommit(new IOException("planned"));
      assertThrows(CheckpointFailedException.class, c::checkpoint);
    }
    assertEquals(List.of("after 2 failed: 7 of 1"), calls);
    try (Coordinator c = start(new InMemoryParticipant<>(resource), state)) {
      assertEquals(List.of("after 2 failed: 7 of 1", "start-up 7 of 1"), calls);
    }
  }

  @Test
  void aCheckpointFailingBeforeAnyWasDecidedRestoresWhereTheApplicationStarted() {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    position.set(3); // where the application starts
    try (Coordinator c = start(sink, state)) {
      assertEquals(List.of(), calls, "nothing decided: nothing to restore at start-up");
      position.set(8); // read on
      sink.failNextPreCommit(new IOException("planned"));
      CheckpointFailedException e = assertThrows(CheckpointFailedException.class, c::checkpoint);
      assertEquals(List.of("after 1 failed: 3 of 0"), calls, "back to the start");
      assertTrue(e.getMessage().contains("since the start (no checkpoint was decided yet)"), e.getMessage());
      assertTrue(e.getMessage().contains("restored to where it started"), e.getMessage());
    }
    try (Coordinator c = start(new InMemoryParticipant<>(resource), state)) {
      assertEquals(List.of("after 1 failed: 3 of 0"), calls, "the start-up snapshot is never logged");
    }
  }

  @Test
  void theThreeFunctionFactoryCallsEachAtItsMoment() {
    ApplicationState<Long> functions = ApplicationState.of(Codecs.json(Long.class), id -> position.get(),
        (p, id) -> calls.add("start-up " + p + " of " + id), (p, id) -> calls.add("after failure " + p + " of " + id));
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = start(sink, functions)) {
      position.set(3);
      c.checkpoint();
      sink.failNextPreCommit(new IOException("planned"));
      assertThrows(CheckpointFailedException.class, c::checkpoint);
    }
    try (Coordinator c = start(new InMemoryParticipant<>(resource), functions)) {
      assertEquals(List.of("after failure 3 of 1", "start-up 3 of 1"), calls);
    }
  }

  @Test
  void byDefaultRestoreServesBothMoments() {
    ApplicationState<Long> one = ApplicationState.of(Codecs.json(Long.class), id -> position.get(),
        (p, id) -> calls.add("restore " + p + " of " + id));
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (Coordinator c = start(sink, one)) {
      position.set(5);
      c.checkpoint();
      sink.failNextPreCommit(new IOException("planned"));
      assertThrows(CheckpointFailedException.class, c::checkpoint);
    }
    try (Coordinator c = start(new InMemoryParticipant<>(resource), one)) {
      assertEquals(List.of("restore 5 of 1", "restore 5 of 1"), calls);
    }
  }
}
