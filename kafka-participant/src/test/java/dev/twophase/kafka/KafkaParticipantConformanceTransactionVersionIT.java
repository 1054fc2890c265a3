package dev.twophase.kafka;

import dev.twophase.Participant;
import dev.twophase.TransactionContext;
import dev.twophase.kafka.internal.BrokerFinding;
import dev.twophase.kafka.internal.BrokerTransactionView;
import dev.twophase.kafka.internal.ProducerState;
import dev.twophase.kafka.internal.ReflectiveTransactionResumer;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testkit.ParticipantConformanceSuite;
import dev.twophase.testkit.SimulatedProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The testkit's conformance suite against the real broker (the build runs it at transaction
 * version 2 and 1): each test on a topic of its own, each
 * "process" a new {@link KafkaParticipant}, a crash a close without aborting (what a killed JVM
 * leaves: producers gone, transactions open on the broker), a lost transaction one the broker
 * aborted, the judge a {@code read_committed} consumer.
 */
class KafkaParticipantConformanceTransactionVersionIT extends ParticipantConformanceSuite<KafkaTransaction, Void, String> {

  private static KafkaTestBroker broker;
  private static Admin admin;
  private final List<KafkaParticipant<String>> participants = new ArrayList<>();
  private String topic;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
    admin = broker.admin();
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  @Override
  protected void setUpResource() {
    topic = "conformance-" + UUID.randomUUID().toString().substring(0, 8);
    broker.createTopic(topic, 1);
  }

  @Override
  protected void tearDownResource() {
    participants.forEach(KafkaParticipant::close);
    participants.clear();
  }

  /**
   * The participant's producers die with {@code process}: the participant has no producer
   * factory to hand over, so the kill closes it, which aborts nothing and closes its pre-committed
   * transactions' producers at once, as a killed process's sockets would close.
   */
  @Override
  protected Participant<KafkaTransaction, Void> newParticipant(SimulatedProcess process) {
    KafkaParticipant<String> p = KafkaParticipant.<String>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000))
        .records(RecordMapper.toTopic(topic, new StringSerializer()))
        .transactionalIdPrefix("conformance")
        .transactionalIdPoolSize(32) // the suite retires nothing
        .transactionalIdWait(Duration.ZERO)
        .closeTimeout(Duration.ofSeconds(5))
        .build();
    participants.add(p);
    process.onKill(p::close);
    return p;
  }

  /**
   * What a read_committed reader sees once the broker has written the markers of every transaction
   * whose end it decided: {@code commitTransaction()} returns when the decision is durable in the
   * broker's transaction log ({@code PrepareCommit}); the markers that make the records visible
   * follow within milliseconds.
   */
  @Override
  protected List<String> committedRecords() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      List<String> ending = new ArrayList<>();
      for (TransactionListing l : admin.listTransactions(new ListTransactionsOptions()
              .filterStates(List.of(TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)))
          .all().get(30, TimeUnit.SECONDS)) {
        if (l.transactionalId().startsWith("conformance-")) {
          ending.add(l.transactionalId());
        }
      }
      if (ending.isEmpty() || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(20);
    }
    return ReadCommitted.visibleNow(broker.bootstrapServers(), topic, Duration.ofSeconds(30));
  }

  @Override
  protected String record(int i) {
    return "record-" + i;
  }

  @Override
  protected boolean lostTransactionSupported() {
    return true;
  }

  /** The broker aborts it, as it does when transaction.timeout.ms passes. */
  @Override
  protected void makeLost(KafkaTransaction transaction) {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, transaction.transactionalId()),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      ReflectiveTransactionResumer.load().resume(p, new ProducerState(
          transaction.producerId(), transaction.epoch(), transaction.transactionV2(), true));
      p.abortTransaction();
    }
  }

  @Override
  protected boolean inProgressCheckSupported() {
    return true;
  }

  @Override
  protected boolean isInProgress(KafkaTransaction transaction) throws Exception {
    BrokerFinding f = new BrokerTransactionView(admin, Duration.ofSeconds(30)).find(transaction.transactionalId(),
        new ProducerState(transaction.producerId(), transaction.epoch(), transaction.transactionV2(), true));
    return f.outcome() == BrokerFinding.Outcome.IN_PROGRESS && f.atTransactionEpoch();
  }

  @Override
  protected Optional<KafkaTransaction> handleNeverBegun(TransactionContext<Void> context) {
    return Optional.of(new KafkaTransaction(context.transactionName(),
        "conformance-never-used-" + UUID.randomUUID(), 987_654, (short) 0, true, false));
  }
}
