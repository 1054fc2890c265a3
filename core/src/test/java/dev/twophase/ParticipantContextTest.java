package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** What a participant learns of its coordinator's configuration from the contexts it is given. */
class ParticipantContextTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();
  private final InMemoryStateLog log = new InMemoryStateLog();
  private final Map<String, Optional<Duration>> seen = new ConcurrentHashMap<>();

  /** A participant that records the interval each context gives (a coordinator closes its own). */
  private DelegatingInMemory probe() {
    return new DelegatingInMemory(new InMemoryParticipant<>(resource)) {
      @Override
      public Optional<Void> initializeUserContext(ParticipantContext context) {
        seen.put("initializeUserContext", context.checkpointInterval());
        return super.initializeUserContext(context);
      }

      @Override
      public InMemoryTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
        seen.put("beginTransaction", context.checkpointInterval());
        return super.beginTransaction(context);
      }

      @Override
      public void finishRecoveringContext(RecoveryContext<InMemoryTransaction, Void> context) throws Exception {
        seen.put("finishRecoveringContext", context.checkpointInterval());
        super.finishRecoveringContext(context);
      }
    };
  }

  @Test
  void everyContextCarriesTheCoordinatorsCheckpointInterval() {
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", probe())
        .config(CoordinatorConfig.custom().checkpointInterval(Duration.ofSeconds(7)).build()).build()) {
      c.checkpoint();
    }
    // a second start restores state, so it recovers instead of initializing
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", probe())
        .config(CoordinatorConfig.custom().checkpointInterval(Duration.ofSeconds(7)).build()).build()) {
      c.checkpoint();
    }
    for (String call : List.of("initializeUserContext", "beginTransaction", "finishRecoveringContext")) {
      assertEquals(Optional.of(Duration.ofSeconds(7)), seen.get(call), call);
    }
  }

  @Test
  void withoutAnIntervalTheContextsSayNone() {
    try (Coordinator c = Coordinator.builder("job", log).participant("sink", probe())
        .config(CoordinatorConfig.custom().checkpointEveryRecords(10).build()).build()) {
      c.checkpoint();
    }
    assertEquals(Optional.empty(), seen.get("initializeUserContext"));
    assertEquals(Optional.empty(), seen.get("beginTransaction"));
  }
}
