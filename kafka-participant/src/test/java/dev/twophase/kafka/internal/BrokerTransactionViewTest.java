package dev.twophase.kafka.internal;

import static dev.twophase.kafka.internal.BrokerFinding.Outcome.ABORTED;
import static dev.twophase.kafka.internal.BrokerFinding.Outcome.COMMITTED;
import static dev.twophase.kafka.internal.BrokerFinding.Outcome.IN_PROGRESS;
import static dev.twophase.kafka.internal.BrokerFinding.Outcome.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.junit.jupiter.api.Test;

/** The classification rule on the descriptions brokers gave in BrokerTransactionViewTransactionVersionIT. */
class BrokerTransactionViewTest {

  private static final ProducerState TV1 = new ProducerState(7, (short) 3, false, true);
  private static final ProducerState TV2 = new ProducerState(7, (short) 3, true, true);

  private static BrokerFinding.Outcome outcome(TransactionState s, long pid, int epoch, ProducerState t) {
    return BrokerTransactionView.classify(
        new TransactionDescription(1, s, pid, epoch, 60_000, OptionalLong.empty(), Set.of()), t).outcome();
  }

  @Test
  void transactionVersion1KeepsTheEpochOnCommitAndBumpsItOnExpiry() {
    assertEquals(COMMITTED, outcome(TransactionState.COMPLETE_COMMIT, 7, 3, TV1));
    assertEquals(ABORTED, outcome(TransactionState.COMPLETE_ABORT, 7, 3, TV1)); // aborted by its producer
    assertEquals(ABORTED, outcome(TransactionState.COMPLETE_ABORT, 7, 4, TV1)); // expired by the broker
    assertEquals(UNKNOWN, outcome(TransactionState.COMPLETE_COMMIT, 7, 4, TV1)); // a later transaction
    assertEquals(IN_PROGRESS, outcome(TransactionState.ONGOING, 7, 3, TV1));
    assertEquals(COMMITTED, outcome(TransactionState.PREPARE_COMMIT, 7, 3, TV1)); // markers being written
    assertEquals(IN_PROGRESS, outcome(TransactionState.ONGOING, 7, 4, TV1)); // being expired
    assertEquals(IN_PROGRESS, outcome(TransactionState.PREPARE_EPOCH_FENCE, 7, 3, TV1));
    assertEquals(UNKNOWN, outcome(TransactionState.ONGOING, 7, 5, TV1));
  }

  @Test
  void transactionVersion2BumpsTheEpochWhenATransactionEnds() {
    assertEquals(COMMITTED, outcome(TransactionState.COMPLETE_COMMIT, 7, 4, TV2));
    assertEquals(UNKNOWN, outcome(TransactionState.COMPLETE_COMMIT, 7, 3, TV2));
    assertEquals(ABORTED, outcome(TransactionState.COMPLETE_ABORT, 7, 4, TV2));
    assertEquals(UNKNOWN, outcome(TransactionState.COMPLETE_ABORT, 7, 3, TV2));
    assertEquals(COMMITTED, outcome(TransactionState.PREPARE_COMMIT, 7, 4, TV2));
    assertEquals(ABORTED, outcome(TransactionState.PREPARE_ABORT, 7, 4, TV2));
    assertEquals(IN_PROGRESS, outcome(TransactionState.ONGOING, 7, 3, TV2));
    assertEquals(UNKNOWN, outcome(TransactionState.ONGOING, 7, 4, TV2)); // a later transaction
    assertEquals(UNKNOWN, outcome(TransactionState.COMPLETE_COMMIT, 7, 5, TV2));
  }

  @Test
  void anotherProducerIdOrNoTransactionIsUnknown() {
    assertEquals(UNKNOWN, outcome(TransactionState.COMPLETE_COMMIT, 8, 3, TV1));
    assertEquals(UNKNOWN, outcome(TransactionState.EMPTY, 7, 4, TV1)); // fenced by initTransactions()
    assertEquals(UNKNOWN, outcome(TransactionState.EMPTY, 7, 4, TV2));
    assertEquals(UNKNOWN, outcome(TransactionState.UNKNOWN, 7, 3, TV2));
  }
}
