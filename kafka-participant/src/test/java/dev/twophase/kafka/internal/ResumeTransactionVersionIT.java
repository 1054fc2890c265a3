package dev.twophase.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * {@link ReflectiveTransactionResumer} against the real broker, at the transaction version the
 * test JVM's broker runs (the build runs this class against TV2 and again against TV1): a
 * transaction pre-committed by a producer that is then abandoned (a crash) is committed by a fresh
 * producer in its place, a repeated commit is harmless, and what the broker reports afterwards is
 * what the participant classifies by.
 */
class ResumeTransactionVersionIT {

  private static KafkaTestBroker broker;
  private final List<KafkaProducer<String, String>> producers = new ArrayList<>();
  private String topic;
  private String transactionalId;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
  }

  @BeforeEach
  void topic(TestInfo info) {
    String unique = info.getTestMethod().orElseThrow().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
    topic = "resume-" + unique;
    transactionalId = "resume-id-" + unique;
    broker.createTopic(topic, 2);
  }

  @AfterEach
  void closeProducers() {
    producers.forEach(p -> p.close(Duration.ZERO));
  }

  @Test
  void checkFindsEverythingInTheClientOnTheClassPath() {
    ReflectiveTransactionResumer.load();
    assertTrue(ReflectiveTransactionResumer.clientVersion().startsWith("4."), ReflectiveTransactionResumer.clientVersion());
  }

  @Test
  void aFreshProducerCommitsTheTransactionOfAnAbandonedOne() throws Exception {
    ReflectiveTransactionResumer resumer = ReflectiveTransactionResumer.load();
    ProducerState state = preCommitAndAbandon(transactionalId, 10, Map.of());
    assertTrue(state.started(), state.toString());
    assertEquals(broker.transactionVersion() == 2, state.transactionV2(), state.toString());
    assertEquals(List.of(), committedValuesIfStable());

    KafkaProducer<String, String> fresh = producer(transactionalId, Map.of());
    resumer.resume(fresh, state);
    fresh.commitTransaction();

    assertEquals(expected(10), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
    TransactionDescription d = describe(transactionalId);
    System.out.println("TV" + broker.transactionVersion() + ": after the resumed commit of " + state + ": " + d);
    assertEquals(TransactionState.COMPLETE_COMMIT, d.state());
    assertEquals(state.producerId(), d.producerId());
    // TV2 bumps the epoch when it ends a transaction; TV1 keeps it.
    assertEquals(state.epoch() + (broker.transactionVersion() == 2 ? 1 : 0), d.producerEpoch(), d.toString());
  }

  @Test
  void aRepeatedCommitFromAnotherFreshProducerIsHarmless() throws Exception {
    ReflectiveTransactionResumer resumer = ReflectiveTransactionResumer.load();
    ProducerState state = preCommitAndAbandon(transactionalId, 5, Map.of());
    for (int i = 0; i < 2; i++) {
      KafkaProducer<String, String> fresh = producer(transactionalId, Map.of());
      resumer.resume(fresh, state);
      fresh.commitTransaction();
      fresh.close(Duration.ofSeconds(5));
    }
    assertEquals(expected(5), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
    assertEquals(TransactionState.COMPLETE_COMMIT, describe(transactionalId).state());
  }

  /**
   * Why the handle carries the flag: at TV2 a repeated commit without it is refused (the broker
   * takes it for a transaction version 1 request at the epoch before the commit's bump), with it
   * the repeat succeeds.
   */
  @Test
  void aRepeatedCommitNeedsTheTransactionVersion2Flag() throws Exception {
    ReflectiveTransactionResumer resumer = ReflectiveTransactionResumer.load();
    ProducerState state = preCommitAndAbandon(transactionalId, 3, Map.of());
    KafkaProducer<String, String> first = producer(transactionalId, Map.of());
    resumer.resume(first, state);
    first.commitTransaction();

    ProducerState withoutFlag = new ProducerState(state.producerId(), state.epoch(), false, true);
    KafkaProducer<String, String> repeat = producer(transactionalId, Map.of());
    resumer.resume(repeat, withoutFlag);
    if (broker.transactionVersion() == 2) {
      KafkaException e = assertThrows(KafkaException.class, repeat::commitTransaction);
      System.out.println("TV2: repeated commit without the TV2 flag: " + e);
    } else {
      repeat.commitTransaction(); // TV1 has no flag to lose
    }
    KafkaProducer<String, String> withFlag = producer(transactionalId, Map.of());
    resumer.resume(withFlag, state);
    withFlag.commitTransaction();
    assertEquals(expected(3), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
  }

  @Test
  void anEmptyTransactionIsNeverStartedOnTheBroker() throws Exception {
    KafkaProducer<String, String> p = producer(transactionalId, Map.of());
    p.initTransactions();
    p.beginTransaction();
    p.flush();
    ProducerState state = ReflectiveTransactionResumer.load().capture(p);
    assertFalse(state.started(), state.toString());
    assertThrows(IllegalArgumentException.class, () -> ReflectiveTransactionResumer.load().resume(producer(transactionalId, Map.of()), state));
    p.commitTransaction(); // the client does not send EndTxn for it
  }

  @Test
  void resumeRefusesAnInitializedProducer() throws Exception {
    ProducerState state = preCommitAndAbandon(transactionalId, 1, Map.of());
    KafkaProducer<String, String> initialized = producer(transactionalId, Map.of());
    initialized.initTransactions(); // this aborts the abandoned transaction
    assertThrows(IllegalStateException.class, () -> ReflectiveTransactionResumer.load().resume(initialized, state));
    TransactionDescription d = describe(transactionalId);
    // The abort and the new producer's registration: the id is Empty, at a higher epoch.
    assertEquals(TransactionState.EMPTY, d.state(), d.toString());
    assertTrue(d.producerEpoch() > state.epoch(), d.toString());
    assertEquals(List.of(), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
  }

  /** What a commit of a transaction the broker expired looks like, and what the broker reports. */
  @Test
  void aTransactionTheBrokerExpiredCannotBeCommittedAndIsReportedAborted() throws Exception {
    ProducerState state = preCommitAndAbandon(transactionalId, 4, Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (describe(transactionalId).state() != TransactionState.COMPLETE_ABORT && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    TransactionDescription d = describe(transactionalId);
    assertEquals(TransactionState.COMPLETE_ABORT, d.state(), d.toString());
    assertTrue(d.producerEpoch() > state.epoch(), "the broker bumps the epoch when it expires a transaction: " + d);

    KafkaProducer<String, String> fresh = producer(transactionalId, Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000));
    ReflectiveTransactionResumer.load().resume(fresh, state);
    KafkaException e = assertThrows(KafkaException.class, fresh::commitTransaction);
    System.out.println("TV" + broker.transactionVersion() + ": commit of an expired transaction " + state + ": " + e
        + "; broker: " + describe(transactionalId));
    assertEquals(List.of(), ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30)));
  }

  // ------------------------------------------------------------------ helpers

  private ProducerState preCommitAndAbandon(String id, int records, Map<String, Object> extra) throws Exception {
    KafkaProducer<String, String> p = producer(id, extra);
    p.initTransactions();
    p.beginTransaction();
    for (int i = 0; i < records; i++) {
      p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i)).get();
    }
    p.flush();
    ProducerState state = ReflectiveTransactionResumer.load().capture(p);
    p.close(Duration.ZERO); // a crash: no commit, no abort
    return state;
  }

  private List<String> committedValuesIfStable() {
    try {
      return ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(1));
    } catch (IllegalStateException openTransaction) {
      return List.of();
    }
  }

  private static List<String> expected(int n) {
    List<String> even = new ArrayList<>();
    List<String> odd = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      (i % 2 == 0 ? even : odd).add("v" + i);
    }
    even.addAll(odd);
    return even;
  }

  private KafkaProducer<String, String> producer(String id, Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    config.putAll(extra);
    KafkaProducer<String, String> p = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    producers.add(p);
    return p;
  }

  private static TransactionDescription describe(String id) throws Exception {
    try (Admin admin = broker.admin()) {
      return admin.describeTransactions(List.of(id)).description(id).get(30, TimeUnit.SECONDS);
    }
  }
}
