package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

/**
 * What every claim and view of one open Kafka state log shares: the topic and its partition
 * count, the log id, the owner's name, the take-over setting, the client settings, the admin
 * client (owned by the log, closed by it) and the timeout of each broker operation.
 */
@Internal
public final class LogContext {

  final String topic;
  final int partitions;
  final String logId;
  final String ownerName;
  final boolean takeOver;
  final String transactionalIdPrefix;
  final ClientSettings settings;
  final Admin admin;
  final Duration timeout;

  public LogContext(String topic, int partitions, String logId, String ownerName,
      boolean takeOver, String transactionalIdPrefix, ClientSettings settings, Admin admin,
      Duration timeout) {
    this.topic = topic;
    this.partitions = partitions;
    this.logId = logId;
    this.ownerName = ownerName;
    this.takeOver = takeOver;
    this.transactionalIdPrefix = transactionalIdPrefix;
    this.settings = settings;
    this.admin = admin;
    this.timeout = timeout;
  }

  public String topic() {
    return topic;
  }

  public String logId() {
    return logId;
  }

  TopicPartition partitionOf(String coordinatorId) {
    return new TopicPartition(topic, RecordKey.partitionOf(coordinatorId, partitions));
  }

  String transactionalId(String coordinatorId) {
    return TransactionalIds.forCoordinator(transactionalIdPrefix, topic, coordinatorId);
  }

  KafkaProducer<byte[], byte[]> newProducer(String transactionalId) {
    return new KafkaProducer<>(settings.producer(transactionalId));
  }

  /** The topic, its partition count and the log id, for messages. */
  public String describe() {
    return "topic '" + topic + "' (" + partitions + " partitions, log id " + logId + ")";
  }
}
