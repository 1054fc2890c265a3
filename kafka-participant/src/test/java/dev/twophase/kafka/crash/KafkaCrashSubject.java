package dev.twophase.kafka.crash;

import dev.twophase.Participant;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.kafka.testbroker.ReadCommitted;
import dev.twophase.testkit.crash.CrashEnvironment;
import dev.twophase.testkit.crash.CrashSubject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka participant as the testkit's crash harness runs it in each child JVM: records
 * {@code "<n>"} to a topic of the scenario's own (two partitions) on the test JVM's broker (its
 * address in the child property {@value #BOOTSTRAP}), transactional ids prefixed per scenario.
 */
public class KafkaCrashSubject implements CrashSubject<String> {

  /** Child property: the broker's {@code host:port}. */
  public static final String BOOTSTRAP = "twophase.kafka.bootstrap";

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) throws Exception {
    String bootstrap = bootstrap(environment);
    String topic = topic(environment);
    try (Admin admin = admin(bootstrap)) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
    return KafkaParticipant.<String>builder(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.BUFFER_MEMORY_CONFIG, 4 * 1024 * 1024))
        .records(RecordMapper.toTopic(topic, new StringSerializer()))
        .transactionalIdPrefix(idPrefix(environment))
        .faultInjector(environment.faults())
        .closeTimeout(Duration.ofSeconds(5))
        .build();
  }

  @Override
  public String record(long n) {
    return Long.toString(n);
  }

  /** What a read_committed reader sees once the broker wrote the markers of the ended transactions. */
  @Override
  public List<String> committedRecords(CrashEnvironment environment) throws Exception {
    String bootstrap = bootstrap(environment);
    try (Admin admin = admin(bootstrap)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!transactions(admin, environment, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT).isEmpty()
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    }
    return ReadCommitted.visibleNow(bootstrap, topic(environment), Duration.ofSeconds(30));
  }

  @Override
  public List<String> openTransactions(CrashEnvironment environment) throws Exception {
    try (Admin admin = admin(bootstrap(environment))) {
      return transactions(admin, environment, TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
          TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);
    }
  }

  private static List<String> transactions(Admin admin, CrashEnvironment environment, TransactionState... states)
      throws Exception {
    List<String> found = new ArrayList<>();
    for (TransactionListing l : admin.listTransactions(new ListTransactionsOptions().filterStates(List.of(states)))
        .all().get(30, TimeUnit.SECONDS)) {
      if (l.transactionalId().startsWith(idPrefix(environment) + "-")) {
        found.add(l.transactionalId() + " " + l.state());
      }
    }
    return found;
  }

  private static String bootstrap(CrashEnvironment environment) {
    return environment.property(BOOTSTRAP)
        .orElseThrow(() -> new IllegalStateException("child property " + BOOTSTRAP + " not set"));
  }

  private static String topic(CrashEnvironment environment) {
    return "crash-" + safe(environment.scenarioId());
  }

  private static String idPrefix(CrashEnvironment environment) {
    return "crash-" + safe(environment.scenarioId());
  }

  private static String safe(String s) {
    return s.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }
}
