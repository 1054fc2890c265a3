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

  /**
   * Own epoch 5, pool of 4: the open transactions of earlier epochs' ids are found (one request,
   * with the broker's pattern filter), also beyond the pool's size, of epochs no handle shows, and
   * of an earlier release's ids without an epoch; never its own epoch's, a newer owner's, or
   * another base's.
   */
  @Test
  void lingeringTransactionsAreExactlyTheEarlierEpochsOpenOnes() throws Exception {
    lingering(LingeringTransactions.Method.PATTERN);
  }

  /** The same on a broker without the pattern filter (before 4.1): all open transactions listed, matched here. */
  @Test
  void lingeringTransactionsWithoutThePatternFilter() throws Exception {
    lingering(LingeringTransactions.Method.LISTING);
  }

  private void lingering(LingeringTransactions.Method method) throws Exception {
    Set<String> expected = Set.of(base + "e4-0", base + "e4-7", base + "e2-1", base + "3");
    Set<String> untouched = leaveOpen(expected);
    LingeringTransactions lingering = new LingeringTransactions(admin, Duration.ofSeconds(30), method);
    assertEquals(expected, lingering.open(base, 5, knownIds()));
    for (String id : lingering.open(base, 5, knownIds())) {
      finisher.fence(id);
    }
    assertEquals(Set.of(), lingering.open(base, 5, knownIds()));
    untouched.forEach(finisher::fence);
    assertEquals(1, committed().size());
  }

  /**
   * On a broker that cannot list transactions, only the ids that can be named are described: the
   * pools of the epochs the handles show (here 4) and the handles' ids; the rest is missed and left
   * to the broker's transaction timeout.
   */
  @Test
  void lingeringTransactionsOfABrokerThatCannotListAreThoseOfKnownEpochs() throws Exception {
    Set<String> all = Set.of(base + "e4-0", base + "e4-7", base + "e2-1", base + "3");
    Set<String> untouched = leaveOpen(all);
    LingeringTransactions lingering = new LingeringTransactions(admin, Duration.ofSeconds(30),
        LingeringTransactions.Method.DESCRIBE);
    List<String> known = new ArrayList<>(knownIds());
    known.add(base + "e6-0"); // a newer owner's, even if named: never
    assertEquals(Set.of(base + "e4-0"), lingering.open(base, 5, known));
    all.forEach(finisher::fence);
    untouched.forEach(finisher::fence);
    assertEquals(1, committed().size());
  }

  /** The pool of epoch 4 (size 4) and a handle's id: what start-up could name. */
  private List<String> knownIds() {
    return List.of(base + "e4-0", base + "e4-1", base + "e4-2", base + "e4-3", base + "e4-2");
  }

  /**
   * Leaves transactions open on {@code lingering} (a crash), commits one on {@code e4-1}, and
   * leaves open ones on ids start-up at epoch 5 must not touch, which it returns.
   */
  private Set<String> leaveOpen(Set<String> lingering) throws Exception {
    List<TransactionalProducer> crashed = new ArrayList<>();
    for (String id : lingering) {
      TransactionalProducer p = open(settings, id);
      preCommitted(p, id, 1);
      crashed.add(p);
    }
    TransactionalProducer done = open(settings, base + "e4-1");
    preCommitted(done, "c", 1);
    done.commit();
    Set<String> untouched = Set.of(base + "e5-0", base + "e6-0", base + "x", "other-" + base + "e4-2");
    for (String id : untouched) {
      TransactionalProducer p = open(settings, id);
      preCommitted(p, id, 1);
      crashed.add(p);
    }
    crashed.forEach(p -> p.close(Duration.ZERO));
    return untouched;
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
