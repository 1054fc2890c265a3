package dev.twophase.benchmarks.statelog;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The stores of one run: the local disk ({@link FileStateLog}), embedded PostgreSQL and MariaDB
 * (durable: {@code fsync} and {@code synchronous_commit} on, {@code
 * innodb_flush_log_at_trx_commit=1}), the in-JVM Kafka broker; each shared store's state log, or
 * why it is missing.
 */
final class Stores implements AutoCloseable {

  /** The compacted topic of the hand-written Kafka loop. */
  static final String FLOOR_TOPIC = "statelog-floor";
  /** The compacted topic of the Kafka state log. */
  static final String LOG_TOPIC = "statelog-bench";
  /** Where the checkpoints' Kafka participants write. */
  static final String OUTPUT_TOPIC = "checkpoint-out";

  final Path dir;
  /** By store: file, pg, maria, kafka. */
  final Map<String, StateLog> logs = new LinkedHashMap<>();
  /** Stores whose log could not be made, and why. */
  final Map<String, String> unavailable = new LinkedHashMap<>();
  final Map<String, DataSource> databases = new LinkedHashMap<>();
  final KafkaTestBroker broker;
  /** Client settings of the Kafka log and the hand-written Kafka loop: the broker, and defaults. */
  final Map<String, Object> clientSettings;

  private Stores(Path dir, KafkaTestBroker broker) {
    this.dir = dir;
    this.broker = broker;
    this.clientSettings = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
  }

  /** Starts the servers {@code names} need (the broker always: the checkpoints write to it). */
  static Stores start(Path dir, List<String> names, int kafkaPartitions) throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker"), 2, Map.of());
    Stores stores = new Stores(dir, broker);
    try {
      try (Admin admin = broker.admin()) {
        Map<String, String> compacted = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        admin.createTopics(List.of(
            new NewTopic(FLOOR_TOPIC, kafkaPartitions, (short) 1).configs(compacted),
            new NewTopic(OUTPUT_TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      for (String name : names) {
        switch (name) {
          case "file" -> stores.logs.put("file", FileStateLog.open(dir.resolve("file-log")));
          case "pg" -> stores.database("pg", PostgresServer.shared().dataSource());
          case "maria" -> stores.database("maria", MariaDbServer.shared().dataSource());
          case "kafka" -> stores.sharedLog("kafka", () -> SharedLogs.kafka(stores.clientSettings, LOG_TOPIC, kafkaPartitions));
          default -> throw new IllegalArgumentException("unknown store " + name + " (file, pg, maria, kafka)");
        }
      }
      return stores;
    } catch (Exception | Error e) {
      stores.close();
      throw e;
    }
  }

  private void database(String name, DataSource ds) throws Exception {
    JdbcFloors.createTable(ds);
    databases.put(name, ds);
    sharedLog(name, () -> SharedLogs.jdbc(name, ds));
  }

  private interface LogFactory {
    StateLog open() throws Exception;
  }

  private void sharedLog(String name, LogFactory factory) {
    try {
      logs.put(name, factory.open());
    } catch (Exception | LinkageError e) {
      unavailable.put(name, e.toString());
      System.out.printf("[statelog] no %s state log: %s%n", name, e);
    }
  }

  @Override
  public void close() {
    for (Map.Entry<String, StateLog> e : logs.entrySet()) {
      try {
        e.getValue().close();
      } catch (RuntimeException ex) {
        System.out.printf("[statelog] closing the %s log failed: %s%n", e.getKey(), ex);
      }
    }
    broker.close(); // the database servers stop with the JVM (their shutdown hook)
  }
}
