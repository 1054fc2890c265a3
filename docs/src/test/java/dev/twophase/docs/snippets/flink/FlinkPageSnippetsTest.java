package dev.twophase.docs.snippets.flink;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.twophase.flink.TwoPhaseSink;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * flink.md's factories for JDBC and Kafka: the sink they make passes {@code build()}'s checks,
 * which serialize every factory. Calling them needs the database and the broker they name.
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
}
