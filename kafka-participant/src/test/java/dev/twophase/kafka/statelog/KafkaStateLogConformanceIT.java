package dev.twophase.kafka.statelog;

import dev.twophase.kafka.internal.statelog.StateLogDamage;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import dev.twophase.testkit.statelog.Ownership;
import dev.twophase.testkit.statelog.StateLogConformanceSuite;
import dev.twophase.testkit.statelog.StateLogFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The state log conformance suite against {@link dev.twophase.kafka.KafkaStateLog} on the in-JVM
 * broker: a fresh compacted topic of three partitions per store, deleted after the test.
 */
class KafkaStateLogConformanceIT extends StateLogConformanceSuite {

  private static final int PARTITIONS = 3;

  private KafkaTestBroker broker;
  private String topic;
  private final List<String> topics = new ArrayList<>();

  @Override
  protected void setUpStore() throws Exception {
    broker = KafkaTestBroker.shared();
    topic = "conformance-" + UUID.randomUUID();
    topics.add(topic);
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)
          .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  protected void tearDownStore() throws Exception {
    try (Admin admin = broker.admin()) {
      admin.deleteTopics(List.copyOf(topics)).all().get(30, TimeUnit.SECONDS);
    }
    topics.clear();
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of(KafkaStateLogFactory.BOOTSTRAP, broker.bootstrapServers(),
        KafkaStateLogFactory.TOPIC, topic,
        KafkaStateLogFactory.PARTITIONS, Integer.toString(PARTITIONS));
  }

  @Override
  protected Class<? extends StateLogFactory> factory() {
    return KafkaStateLogFactory.class;
  }

  @Override
  protected Ownership ownership() {
    return Ownership.PER_COORDINATOR;
  }

  @Override
  protected void damageLastState(String coordinatorId) throws Exception {
    StateLogDamage.flipLastStateByte(broker.bootstrapServers(), topic, PARTITIONS, coordinatorId);
  }
}
