package dev.twophase.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BrokerTransactionView} against the real broker, at the transaction version of the test
 * JVM's broker (the build runs it at TV2 and TV1): every way a transaction can end, and what the
 * view reads from it for the transaction's producer id and epoch.
 */
class BrokerTransactionViewTransactionVersionIT {

  private static KafkaTestBroker broker;
  private static Admin admin;
  private final List<KafkaProducer<String, String>> producers = new ArrayList<>();
  private final ReflectiveTransactionResumer resumer = ReflectiveTransactionResumer.load();
  private String topic;
  private String id;
  private BrokerTransactionView view;

  @BeforeAll
  static void startBroker() {
    broker = KafkaTestBroker.shared();
    admin = broker.admin();
  }

  @AfterAll
  static void closeAdmin() {
    admin.close();
  }

  @BeforeEach
  void names() {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    topic = "view-" + unique;
    id = "view-id-" + unique;
    broker.createTopic(topic, 1);
    view = new BrokerTransactionView(admin, Duration.ofSeconds(30));
  }

  @AfterEach
  void closeProducers() {
    producers.forEach(p -> p.close(Duration.ZERO));
  }

  @Test
  void committed() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    ProducerState state = resumer.capture(p);
    p.commitTransaction();
    assertOutcome(BrokerFinding.Outcome.COMMITTED, state);
  }

  @Test
  void committedByAResumedProducer() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    ProducerState state = resumer.capture(p);
    p.close(Duration.ZERO);
    KafkaProducer<String, String> fresh = producer(Map.of());
    resumer.resume(fresh, state);
    fresh.commitTransaction();
    assertOutcome(BrokerFinding.Outcome.COMMITTED, state);
  }

  @Test
  void abortedByItsProducer() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    ProducerState state = resumer.capture(p);
    p.abortTransaction();
    assertOutcome(BrokerFinding.Outcome.ABORTED, state);
  }

  @Test
  void expiredByTheBroker() throws Exception {
    KafkaProducer<String, String> p = started(Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000));
    ProducerState state = resumer.capture(p);
    p.close(Duration.ZERO);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    BrokerFinding f = view.find(id, state);
    System.out.println("TV" + broker.transactionVersion() + " expiring: " + f.evidence());
    while (f.outcome() == BrokerFinding.Outcome.IN_PROGRESS && System.nanoTime() < deadline) {
      Thread.sleep(200);
      f = view.find(id, state);
    }
    assertEquals(BrokerFinding.Outcome.ABORTED, f.outcome(), f.evidence());
  }

  @Test
  void openIsInProgress() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    assertOutcome(BrokerFinding.Outcome.IN_PROGRESS, resumer.capture(p));
    p.abortTransaction();
  }

  @Test
  void fencedByANewProducerIsUnknown() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    ProducerState state = resumer.capture(p);
    p.close(Duration.ZERO);
    producer(Map.of()).initTransactions(); // aborts it and registers a new epoch: Empty
    assertOutcome(BrokerFinding.Outcome.UNKNOWN, state);
  }

  @Test
  void aLaterTransactionOnTheSameIdIsUnknownForTheEarlierOneAtTransactionVersion2() throws Exception {
    KafkaProducer<String, String> p = started(Map.of());
    ProducerState first = resumer.capture(p);
    p.commitTransaction();
    p.beginTransaction();
    p.send(new ProducerRecord<>(topic, "k", "second")).get();
    p.flush();
    ProducerState second = resumer.capture(p);
    p.commitTransaction();
    assertOutcome(BrokerFinding.Outcome.COMMITTED, second);
    BrokerFinding f = view.find(id, first);
    // TV1 reuses the epoch for every transaction of a producer: the id pool, which never gives an
    // id to a new transaction while an earlier handle on it may still be committed, is what keeps
    // this from mattering. TV2 tells them apart.
    assertEquals(broker.transactionVersion() == 2 ? BrokerFinding.Outcome.UNKNOWN : BrokerFinding.Outcome.COMMITTED,
        f.outcome(), f.evidence());
  }

  @Test
  void anIdTheBrokerNeverSawIsUnknown() throws Exception {
    BrokerFinding f = view.find("never-used-" + id, new ProducerState(1, (short) 0, true, true));
    assertEquals(BrokerFinding.Outcome.UNKNOWN, f.outcome());
    assertTrue(f.evidence().contains("does not know"), f.evidence());
  }

  private void assertOutcome(BrokerFinding.Outcome expected, ProducerState state) throws Exception {
    BrokerFinding f = view.find(id, state);
    System.out.println("TV" + broker.transactionVersion() + " " + expected + ": " + f.evidence());
    assertEquals(expected, f.outcome(), f.evidence());
  }

  private KafkaProducer<String, String> started(Map<String, Object> extra) throws Exception {
    KafkaProducer<String, String> p = producer(extra);
    p.initTransactions();
    p.beginTransaction();
    p.send(new ProducerRecord<>(topic, "k", "v")).get();
    p.flush();
    return p;
  }

  private KafkaProducer<String, String> producer(Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    config.putAll(extra);
    KafkaProducer<String, String> p = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    producers.add(p);
    return p;
  }
}
