package dev.twophase.kafka.internal;

import dev.twophase.AbortOutcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.kafka.KafkaTransaction;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.kafka.testbroker.ReadCommitted;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionFinisher} and {@link LingeringTransactions} against the real broker at the test
 * JVM's transaction version (run at TV2 and TV1): each outcome of commit and abort, live and from
 * the handle alone, with a {@code read_committed} reader as the judge.
 */
class TransactionFinisherTransactionVersionIT {

  private static KafkaTestBroker broker;
  private static Admin admin;
  private final List<TransactionalProducer> producers = new ArrayList<>();
  private final ReflectiveTransactionResumer resumer = ReflectiveTransactionResumer.load();
  private String topic;
  private String base;
  private ProducerSettings settings;
  private ProducerSettings shortTimeout;
  private TransactionFinisher finisher;

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
    topic = "finish-" + unique;
    base = "finish-" + unique + "-tid-";
    broker.createTopic(topic, 2);
    settings = settings(Map.of());
    shortTimeout = settings(Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000));
    finisher = finisher(settings);
  }

  @AfterEach
  void closeProducers() {
    producers.forEach(p -> p.close(Duration.ZERO));
  }

  @Test
  void liveCommitThenRepeatFromTheHandle() throws Exception {
    TransactionalProducer p = open(settings, base + 0);
    KafkaTransaction t = preCommitted(p, "t1", 6);
    TransactionFinisher.LiveCommit live = finisher.commitLive(p, t);
    assertEquals(CommitOutcome.COMMITTED, live.outcome());
    assertTrue(live.producerUsable());
    assertEquals(6, committed().size());
    assertEquals(CommitOutcome.ALREADY_COMMITTED, finisher.commitResumed(t));
    assertEquals(6, committed().size());
  }

  @Test
  void resumedCommitOfAnAbandonedTransactionThenRepeat() throws Exception {
    TransactionalProducer p = open(settings, base + 0);
    KafkaTransaction t = preCommitted(p, "t1", 4);
    p.close(Duration.ZERO); // crash
    assertEquals(CommitOutcome.COMMITTED, finisher.commitResumed(t));
    assertEquals(CommitOutcome.ALREADY_COMMITTED, finisher.commitResumed(t));
    assertEquals(4, committed().size());
  }

  @Test
  void aTransactionTheBrokerExpiredIsLostLiveAndFromTheHandle() throws Exception {
    TransactionalProducer p = open(shortTimeout, base + 0);
    KafkaTransaction t = preCommitted(p, "t1", 3);
    TransactionFinisher f = finisher(shortTimeout);
    awaitAborted(t);
    assertEquals(CommitOutcome.LOST, f.commitLive(p, t).outcome());
    assertEquals(CommitOutcome.LOST, f.commitResumed(t));
    assertEquals(List.of(), committed());
  }

  @Test
  void anEmptyTransactionCommitsLiveAndFromTheHandle() throws Exception {
    TransactionalProducer p = open(settings, base + 0);
    KafkaTransaction t = preCommitted(p, "t1", 0);
    assertFalse(t.started());
    assertEquals(CommitOutcome.COMMITTED, finisher.commitLive(p, t).outcome());
    assertEquals(CommitOutcome.COMMITTED, finisher.commitResumed(t));
    assertEquals(List.of(), committed());
  }

  @Test
  void abortFromTheHandle() throws Exception {
    TransactionalProducer open = open(settings, base + 0);
    KafkaTransaction begun = begun(open, "t1");
    send(open, 3);
    open.flush();
    open.close(Duration.ZERO);
    assertEquals(AbortOutcome.ABORTED, finisher.abortResumed(begun)); // its handle from before the sends
    assertEquals(AbortOutcome.NOT_FOUND, finisher.abortResumed(begun));

    TransactionalProducer never = open(settings, base + 1);
    KafkaTransaction nothingSent = begun(never, "t2");
    never.close(Duration.ZERO);
    assertEquals(AbortOutcome.NOT_FOUND, finisher.abortResumed(nothingSent));

    TransactionalProducer c = open(settings, base + 2);
    KafkaTransaction committed = preCommitted(c, "t3", 2);
    c.commit();
    assertEquals(AbortOutcome.COMMITTED, finisher.abortResumed(committed));
    assertEquals(2, committed().size()); // stable: nothing left open
  }

  @Test
  void aCommitFencedByAnotherProducerOfTheIdStopsWithFencedException() throws Exception {
    TransactionalProducer zombie = open(settings, base + 0);
    KafkaTransaction t = preCommitted(zombie, "t1", 2);
    finisher.fence(base + 0); // another producer of the id registers: aborts t, fences the zombie
    FencedException e = assertThrows(FencedException.class, () -> finisher.commitLive(zombie, t));
    assertTrue(e.getMessage().contains("taken over by another producer"), e.getMessage());
    assertEquals(List.of(), committed());
  }

  @Test
  void lingeringTransactionsAreExactlyThePoolsOpenOnes() throws Exception {
    TransactionalProducer a = open(settings, base + 0);
    preCommitted(a, "a", 1);
    TransactionalProducer b = open(settings, base + 7); // beyond today's pool of 4: an earlier, larger pool
    preCommitted(b, "b", 1);
    TransactionalProducer done = open(settings, base + 1);
    preCommitted(done, "c", 1);
    done.commit();
    TransactionalProducer other = open(settings, base + "x");
    preCommitted(other, "d", 1);
    TransactionalProducer otherPrefix = open(settings, "other-" + base + 2);
    preCommitted(otherPrefix, "e", 1);
    List.of(a, b, other, otherPrefix).forEach(p -> p.close(Duration.ZERO)); // crash

    LingeringTransactions lingering = new LingeringTransactions(admin, Duration.ofSeconds(30));
    List<String> pool = List.of(base + 0, base + 1, base + 2, base + 3);
    assertEquals(Set.of(base + 0, base + 7), lingering.open(base, pool));
    for (String id : lingering.open(base, pool)) {
      finisher.fence(id);
    }
    assertEquals(Set.of(), lingering.open(base, pool));
    finisher.fence(base + "x");
    finisher.fence("other-" + base + 2);
    assertEquals(1, committed().size());
  }

  // ------------------------------------------------------------------ helpers

  private ProducerSettings settings(Map<String, Object> extra) {
    Map<String, Object> m = new HashMap<>();
    m.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    m.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    m.putAll(extra);
    return new ProducerSettings(m);
  }

  private TransactionFinisher finisher(ProducerSettings s) {
    return new TransactionFinisher("kafka-it", s, resumer, new BrokerTransactionView(admin, Duration.ofSeconds(30)),
        FaultInjector.none(), Duration.ofSeconds(5));
  }

  private TransactionalProducer open(ProducerSettings s, String id) {
    TransactionalProducer p = TransactionalProducer.open(s, id, resumer);
    producers.add(p);
    p.init();
    return p;
  }

  private KafkaTransaction begun(TransactionalProducer p, String name) {
    ProducerState s = p.begin();
    return new KafkaTransaction(name, p.transactionalId(), s.producerId(), s.epoch(), s.transactionV2(), false);
  }

  private KafkaTransaction preCommitted(TransactionalProducer p, String name, int records) throws Exception {
    p.begin();
    send(p, records);
    ProducerState s = p.flush();
    return new KafkaTransaction(name, p.transactionalId(), s.producerId(), s.epoch(), s.transactionV2(), s.started());
  }

  private void send(TransactionalProducer p, int records) {
    for (int i = 0; i < records; i++) {
      p.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8)));
    }
  }

  private void awaitAborted(KafkaTransaction t) throws Exception {
    BrokerTransactionView view = new BrokerTransactionView(admin, Duration.ofSeconds(30));
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (view.find(t.transactionalId(), new ProducerState(t.producerId(), t.epoch(), t.transactionV2(), true)).outcome()
        != BrokerFinding.Outcome.ABORTED) {
      assertTrue(System.nanoTime() < deadline, "the broker did not expire " + t);
      Thread.sleep(200);
    }
  }

  private List<String> committed() {
    return ReadCommitted.values(broker.bootstrapServers(), topic, Duration.ofSeconds(30));
  }
}
