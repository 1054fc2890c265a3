package dev.twophase.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.kafka.IncompatibleKafkaClientException;
import org.junit.jupiter.api.Test;

/** The start-up check of the client's internals (Flink's "reflection breaks on a client upgrade"). */
class ReflectiveTransactionResumerTest {

  @Test
  void theClientOnTheClassPathHasEverything() {
    ReflectiveTransactionResumer.load();
  }

  /** A producer class without a transaction manager, as a client whose internals changed. */
  static final class ChangedProducer {
    @SuppressWarnings("unused")
    private Object somethingElse;
  }

  /** A transaction manager whose producer id field is gone. */
  static final class ChangedManager {
    @SuppressWarnings("unused")
    private volatile boolean transactionStarted;
  }

  static final class ProducerWithChangedManager {
    @SuppressWarnings("unused")
    private ChangedManager transactionManager;
  }

  @Test
  void aClientWithoutTheMembersFailsAtStartUpNamingVersionAndMember() {
    IncompatibleKafkaClientException e = assertThrows(IncompatibleKafkaClientException.class,
        () -> ReflectiveTransactionResumer.load(ChangedProducer.class));
    assertTrue(e.getMessage().contains("kafka-clients " + ReflectiveTransactionResumer.clientVersion()), e.getMessage());
    assertTrue(e.getMessage().contains("transactionManager"), e.getMessage());
    assertTrue(e.getMessage().contains("put that version on the class path"), e.getMessage());

    IncompatibleKafkaClientException changed = assertThrows(IncompatibleKafkaClientException.class,
        () -> ReflectiveTransactionResumer.load(ProducerWithChangedManager.class));
    assertTrue(changed.getMessage().contains("TransactionManager"), changed.getMessage());
  }

  @Test
  void theVersionComesFromTheClientJar() {
    assertTrue(ReflectiveTransactionResumer.clientVersion().matches("4\\.\\d+\\.\\d+.*"), ReflectiveTransactionResumer.clientVersion());
  }
}
