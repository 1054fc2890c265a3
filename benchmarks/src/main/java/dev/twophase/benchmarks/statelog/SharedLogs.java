package dev.twophase.benchmarks.statelog;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.StateLogStats;
import dev.twophase.benchmarks.statelog.TimedCrew.Probe;
import dev.twophase.jdbc.JdbcStateLog;
import dev.twophase.jdbc.JdbcStateLogStats;
import dev.twophase.kafka.KafkaStateLog;
import java.util.Locale;
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
   * The log's own counters per turn, where it has them: appends per sync of a {@link
   * FileStateLog}, appends per database transaction and transactions per second of a {@link
   * JdbcStateLog}; else null.
   */
  static Probe probe(StateLog log) {
    if (log instanceof FileStateLog file) {
      return new Probe() {
        private StateLogStats before;

        @Override
        public void start() {
          before = file.stats();
        }

        @Override
        public String end(long elapsedNanos) {
          StateLogStats s = file.stats().minus(before);
          return String.format(Locale.ROOT, "%.1f appends/sync, %,.0f syncs/s", s.appendsPerSync(),
              s.syncs() * 1e9 / elapsedNanos);
        }
      };
    }
    if (log instanceof JdbcStateLog jdbc) {
      return new Probe() {
        private JdbcStateLogStats before;

        @Override
        public void start() {
          before = jdbc.stats();
        }

        @Override
        public String end(long elapsedNanos) {
          JdbcStateLogStats s = jdbc.stats().minus(before);
          return String.format(Locale.ROOT, "%.1f appends/transaction, %,.0f transactions/s",
              s.appendsPerTransaction(), s.transactions() * 1e9 / elapsedNanos);
        }
      };
    }
    return null;
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
