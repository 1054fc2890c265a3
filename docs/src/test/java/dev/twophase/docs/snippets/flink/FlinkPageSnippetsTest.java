package dev.twophase.docs.snippets.flink;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.flink.FlinkPoints;
import dev.twophase.flink.TwoPhaseSink;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * flink.md's factories for JDBC and Kafka, and its crash tests' fault injector: the sinks they
 * make pass {@code build()}'s checks, which serialize every factory and the injector's supplier.
 * Calling the factories needs the database and the broker they name.
 */
class FlinkPageSnippetsTest {

  @Test
  void theFactoriesBuildASink() {
    // snippet: flink-factories
    String jdbcUrl = "jdbc:postgresql://db:5432/shop"; // captured as strings: the factory is serialized
    String bootstrap = "kafka:9092";
    TwoPhaseSink<String> sink = TwoPhaseSink.<String>builder("orders")
        .participant("db", () -> {
          org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource(); // no pool
          ds.setUrl(jdbcUrl);
          return JdbcParticipant.builder(ds)
              .<String>insert("INSERT INTO orders (v) VALUES (?)", (st, v) -> st.setString(1, v))
              .build();
        })
        .participant("kafka", () -> KafkaParticipant.<String>builder(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 900_000))
            .records(RecordMapper.toTopic("orders", new StringSerializer()))
            .transactionalIdPrefix("shop")
            .build())
        .build();
    // end snippet
    assertNotNull(sink);
  }

  @Test
  void theFaultInjectorBuildsASink() {
    TwoPhaseSink<String> sink = TwoPhaseSink.<String>builder("orders")
        .participant("files", () -> FileParticipant.builder(Path.of("/data/orders"), RecordEncoders.lines()).build())
        // snippet: flink-fault-injector
        .faultInjector(() -> CrashInjector.parse(System.getProperty("crashAt"), FlinkPoints.all()))
        // end snippet
        .build();
    assertNotNull(sink);
  }
}
