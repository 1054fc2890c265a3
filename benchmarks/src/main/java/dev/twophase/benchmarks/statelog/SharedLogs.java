package dev.twophase.benchmarks.statelog;

import dev.twophase.StateLog;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.kafka.KafkaStateLog;
import java.util.Map;
import javax.sql.DataSource;

/** The shared state logs under test, built as their modules document, with their defaults. */
final class SharedLogs {

  private SharedLogs() {}

  /**
   * A {@link JdbcStateLog} in the database of {@code ds} ({@code store}: pg or maria), in its
   * default table, created if missing.
   */
  static StateLog jdbc(String store, DataSource ds) {
    return JdbcStateLog.builder(ds).ownerName("statelog-bench-" + store).build();
  }

  /**
   * A {@link KafkaStateLog} on {@code topic}, created with {@code partitions} partitions and one
   * replica (the in-JVM broker is one broker).
   */
  static StateLog kafka(Map<String, Object> clientProperties, String topic, int partitions) {
    return KafkaStateLog.builder(clientProperties, topic)
        .ownerName("statelog-bench")
        .createTopic(partitions, (short) 1)
        .build();
  }
}
