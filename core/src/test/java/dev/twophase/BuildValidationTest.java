package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.internal.StateCodec;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import dev.twophase.testing.InMemoryStateLog;
import dev.twophase.testing.InMemoryTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Bad input is refused where it is given, with a message that says what to fix (issue-8 items 10
 * to 13): ids, participant declarations, settings that could never take effect, checkpoint ids,
 * state of a newer format, and the lost-transaction advice.
 */
class BuildValidationTest {

  private final InMemoryResource<String> resource = new InMemoryResource<>();

  @Test
  void anOverlongCoordinatorIdIsAnIllegalArgumentAtBuildQuotedShort() {
    String id = "x".repeat(10_000);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Coordinator.builder(id, new InMemoryStateLog()));
    assertTrue(e.getMessage().contains("at most 255 bytes"), e.getMessage());
    assertTrue(e.getMessage().length() < 200, "the id is quoted shortened: " + e.getMessage().length());
    IllegalArgumentException embedded = assertThrows(IllegalArgumentException.class,
        () -> EmbeddedCoordinator.builder("y".repeat(300)));
    assertTrue(embedded.getMessage().contains("at most 255 bytes"), embedded.getMessage());
  }

  @Test
  void malformedIdsAndNamesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> Coordinator.builder("bad\uD800", new InMemoryStateLog()));
    assertThrows(IllegalArgumentException.class, () -> Coordinator.builder("  ", new InMemoryStateLog()));
    assertThrows(IllegalArgumentException.class,
        () -> EmbeddedCoordinator.builder("job").participant("z".repeat(256), new InMemoryParticipant<>(resource)));
  }

  @Test
  void aTransactionCodecThatFailsAtBuildIsNamedWithTheStepAndTheParticipant() {
    InMemoryParticipant<String> real = new InMemoryParticipant<>(resource);
    DelegatingInMemory broken = new DelegatingInMemory(real) {
      @Override
      public Codec<InMemoryTransaction> transactionCodec() {
        Codec<InMemoryTransaction> codec = real.transactionCodec();
        return new Codec<>() {
          @Override
          public int version() {
            return codec.version();
          }

          @Override
          public byte[] encode(InMemoryTransaction value) {
            throw new IllegalArgumentException("planned: cannot encode");
          }

          @Override
          public InMemoryTransaction decode(byte[] bytes, int version) throws Exception {
            return codec.decode(bytes, version);
          }
        };
      }
    };
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> Coordinator.builder("job", new InMemoryStateLog()).participant("sink", broken).build());
    assertEquals("sink", e.participant().orElseThrow());
    assertTrue(e.getMessage().contains("start-up record"), e.getMessage());
    assertTrue(e.getMessage().contains("participant 'sink': its transaction codec"), e.getMessage());
    assertTrue(e.getMessage().contains("planned: cannot encode"), e.getMessage());
    assertEquals(0, resource.openTransactions().size(), "what the start began was aborted");
  }

  @Test
  void aNullHandleFromBeginIsABrokenParticipantNotARetriableFailure() {
    DelegatingInMemory broken = new DelegatingInMemory(new InMemoryParticipant<>(resource)) {
      @Override
      public InMemoryTransaction beginTransaction(TransactionContext<Void> context) {
        return null;
      }
    };
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> Coordinator.builder("job", new InMemoryStateLog()).participant("sink", broken).build());
    assertTrue(e.getMessage().contains("participant 'sink' of coordinator 'job' returned null from beginTransaction"),
        e.getMessage());
    assertEquals(FatalTwoPhaseException.class, e.getClass(), "not wrapped into a retriable exception");
    assertEquals(0, resource.openTransactions().size(), "nothing left open");
  }

  @Test
  void timeoutOptionsWithoutAnyTimeoutAreRefusedAtBuild() {
    IllegalArgumentException warnings = assertThrows(IllegalArgumentException.class,
        () -> Coordinator.builder("job", new InMemoryStateLog()).participant("sink", new InMemoryParticipant<>(resource))
            .config(CoordinatorConfig.custom().enableTransactionTimeoutWarnings(0.5).build()).build());
    assertTrue(warnings.getMessage().contains("no warning could ever fire"), warnings.getMessage());
    IllegalArgumentException ignore = assertThrows(IllegalArgumentException.class,
        () -> EmbeddedCoordinator.builder("job").participant("sink", new InMemoryParticipant<>(resource))
            .config(CoordinatorConfig.custom().ignoreFailuresAfterTransactionTimeout().build()).build());
    assertTrue(ignore.getMessage().contains("could never apply"), ignore.getMessage());
    // A participant's own timeout is enough.
    InMemoryParticipant<String> timed = InMemoryParticipant.builder(resource).transactionTimeout(Duration.ofMinutes(1)).build();
    EmbeddedCoordinator.builder("job").participant("sink", timed)
        .config(CoordinatorConfig.custom().enableTransactionTimeoutWarnings(0.5).build()).build().close();
  }

  @Test
  void theLargestCheckpointIdIsRefusedBecauseNothingCouldFollowIt() {
    try (EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", new InMemoryParticipant<>(resource)).build()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.snapshot(Long.MAX_VALUE));
      assertTrue(e.getMessage().contains("largest long"), e.getMessage());
      c.snapshot(Long.MAX_VALUE - 1);
    }
  }

  @Test
  void stateOfANewerFormatSaysSo() {
    String newer = "{\"format\":" + (StateCodec.FORMAT + 1) + ",\"coordinatorId\":\"job\",\"somethingNew\":true}";
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
        () -> EmbeddedCoordinator.builder("job").participant("sink", new InMemoryParticipant<>(resource))
            .restoreFrom(newer.getBytes(StandardCharsets.UTF_8)).build());
    assertTrue(e.getMessage().contains("newer version of twophase"), e.getMessage());
    FatalTwoPhaseException garbage = assertThrows(FatalTwoPhaseException.class,
        () -> EmbeddedCoordinator.builder("job").participant("sink", new InMemoryParticipant<>(resource))
            .restoreFrom("not json".getBytes(StandardCharsets.UTF_8)).build());
    assertTrue(garbage.getMessage().contains("not written by twophase, or it is damaged"), garbage.getMessage());
  }

  @Test
  void aLostTransactionWithoutTimeoutPointsAtDurabilityNotAtTheTimeout() {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    try (EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", sink).build()) {
      c.output(sink).write("a");
      c.snapshot(1);
      sink.loseOnNextCommit();
      TransactionLostException e = assertThrows(TransactionLostException.class, () -> c.notifyCheckpointComplete(1));
      assertTrue(e.getMessage().contains("probably not durable"), e.getMessage());
      assertFalse(e.getMessage().contains("Raise the resource's transaction timeout"), e.getMessage());
    }
  }

  @Test
  void aLostTransactionOlderThanItsTimeoutPointsAtTheTimeout() {
    MutableClock clock = new MutableClock(0);
    InMemoryParticipant<String> sink = InMemoryParticipant.builder(resource).clock(clock)
        .transactionTimeout(Duration.ofSeconds(1)).build();
    try (EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", sink)
        .config(CoordinatorConfig.custom().clock(clock).build()).build()) {
      c.output(sink).write("a");
      c.snapshot(1);
      clock.advance(2_000);
      TransactionLostException e = assertThrows(TransactionLostException.class, () -> c.notifyCheckpointComplete(1));
      assertTrue(e.getMessage().contains("older than its timeout (age 2000 ms, timeout 1000 ms)"), e.getMessage());
    }
  }

  @Test
  void writesAfterAFailureThrowTheDocumentedFatalException() {
    InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator c = EmbeddedCoordinator.builder("job").participant("sink", sink).build();
    c.output(sink).write("a");
    c.snapshot(1);
    sink.loseOnNextCommit();
    assertThrows(TransactionLostException.class, () -> c.notifyCheckpointComplete(1));
    FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class, () -> c.output(sink).write("b"));
    assertTrue(e.getCause() instanceof TransactionLostException);
    assertEquals(CoordinatorState.FAILED, c.state());
    c.close();
  }
}
