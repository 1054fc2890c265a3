package dev.twophase.kafka.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The checks of a state log's topic at open, and its creation if asked for. A topic is refused,
 * with every setting to change named in one message, if
 * <ul>
 *   <li>{@code cleanup.policy} is not exactly {@code compact}: time or size retention would
 *       delete a coordinator's last state;
 *   <li>{@code unclean.leader.election.enable} is true: an out-of-sync replica could become leader
 *       and lose acknowledged appends, that is decided checkpoints;
 *   <li>{@code min.insync.replicas} is below {@code min(2, replication factor)} (an append
 *       acknowledged by one replica is lost with its disk) or above the replication factor (no
 *       append can succeed);
 *   <li>{@code max.message.bytes} is smaller than a state chunk record.
 * </ul>
 */
@Internal
final class TopicChecks {

  /** The smallest {@code max.message.bytes} that holds a chunk, its key and a batch header. */
  static final int MIN_MAX_MESSAGE_BYTES = StateChunks.CHUNK_BYTES + Frame.OVERHEAD + 1024;

  private TopicChecks() {}

  /**
   * Checks {@code topic}, creating it first if it is missing and {@code createPartitions > 0}.
   *
   * @return the topic's partition count
   * @throws FatalTwoPhaseException if the topic is missing (and not to be created) or refused
   * @throws RetriableTwoPhaseException if the broker does not answer
   */
  static int check(Admin admin, String topic, int createPartitions, short createReplicationFactor,
      Duration timeout) {
    TopicDescription d = describe(admin, topic, timeout);
    if (d == null && createPartitions > 0) {
      create(admin, topic, createPartitions, createReplicationFactor, timeout);
      // A topic just created (here or by another process) reaches the brokers' metadata a little
      // after the controller accepted it.
      long deadline = System.nanoTime() + timeout.toNanos();
      while ((d = describe(admin, topic, timeout)) == null && System.nanoTime() < deadline) {
        sleep(topic);
      }
    }
    if (d == null) {
      throw new FatalTwoPhaseException("the state log topic '" + topic + "' does not exist: create "
          + "it with cleanup.policy=compact, min.insync.replicas=2, replication factor 3 and "
          + "unclean.leader.election.enable=false (see docs/state-log-kafka.md), or let the log "
          + "create it (KafkaStateLog.Builder.createTopic)");
    }
    int rf = Integer.MAX_VALUE;
    for (TopicPartitionInfo p : d.partitions()) {
      rf = Math.min(rf, p.replicas().size());
    }
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = await(admin.describeConfigs(List.of(resource)).all(), topic, timeout)
        .get(resource);
    List<String> problems = new ArrayList<>();
    String policy = value(config, TopicConfig.CLEANUP_POLICY_CONFIG);
    if (!"compact".equals(policy)) {
      problems.add(TopicConfig.CLEANUP_POLICY_CONFIG + "=" + policy + ": time or size retention "
          + "would delete a coordinator's last state; set " + TopicConfig.CLEANUP_POLICY_CONFIG
          + "=compact");
    }
    String unclean = value(config, TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
    if ("true".equalsIgnoreCase(unclean)) {
      problems.add(TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG + "=true: an out-of-sync "
          + "replica elected leader loses decided checkpoints; set it to false");
    }
    int minIsr = intValue(config, TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, 1);
    int wanted = Math.min(2, rf);
    if (minIsr < wanted) {
      problems.add(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG + "=" + minIsr + " with replication "
          + "factor " + rf + ": an append acknowledged by one replica is lost with that replica's "
          + "disk; set it to " + wanted);
    } else if (minIsr > rf) {
      problems.add(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG + "=" + minIsr + " is above the "
          + "replication factor " + rf + ": no append can succeed; set it to " + wanted);
    }
    int maxMessage = intValue(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.MAX_VALUE);
    if (maxMessage < MIN_MAX_MESSAGE_BYTES) {
      problems.add(TopicConfig.MAX_MESSAGE_BYTES_CONFIG + "=" + maxMessage + " is below a state "
          + "chunk record (states are written in chunks of " + StateChunks.CHUNK_BYTES
          + " bytes); set it to at least " + MIN_MAX_MESSAGE_BYTES);
    }
    if (!problems.isEmpty()) {
      throw new FatalTwoPhaseException("the state log topic '" + topic + "' is refused: "
          + String.join("; ", problems) + " (kafka-configs --alter --entity-type topics "
          + "--entity-name " + topic + " --add-config ...; see docs/state-log-kafka.md)");
    }
    return d.partitions().size();
  }

  private static TopicDescription describe(Admin admin, String topic, Duration timeout) {
    try {
      return await(admin.describeTopics(List.of(topic)).allTopicNames(), topic, timeout).get(topic);
    } catch (RetriableTwoPhaseException e) {
      if (e.getCause() instanceof ExecutionException ee
          && ee.getCause() instanceof UnknownTopicOrPartitionException) {
        return null;
      }
      throw e;
    }
  }

  private static void create(Admin admin, String topic, int partitions, short rf,
      Duration timeout) {
    NewTopic t = new NewTopic(topic, partitions, rf).configs(Map.of(
        TopicConfig.CLEANUP_POLICY_CONFIG, "compact",
        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(Math.min(2, (int) rf)),
        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false"));
    try {
      await(admin.createTopics(List.of(t)).all(), topic, timeout);
    } catch (RetriableTwoPhaseException e) {
      if (!(e.getCause() instanceof ExecutionException ee
          && ee.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  private static void sleep(String topic) {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableTwoPhaseException("interrupted while waiting for the state log topic '"
          + topic + "' to be created", e);
    }
  }

  private static String value(Config config, String name) {
    ConfigEntry e = config == null ? null : config.get(name);
    return e == null || e.value() == null ? null : e.value().trim();
  }

  private static int intValue(Config config, String name, int absent) {
    String v = value(config, name);
    try {
      return v == null ? absent : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      return absent;
    }
  }

  private static <T> T await(org.apache.kafka.common.KafkaFuture<T> f, String topic,
      Duration timeout) {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableTwoPhaseException("interrupted while checking the state log topic '"
          + topic + "'", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new RetriableTwoPhaseException("could not check the state log topic '" + topic
          + "' within " + timeout + ": " + (e.getCause() == null ? e : e.getCause())
          + "; open the log again when the broker answers", e);
    }
  }
}
