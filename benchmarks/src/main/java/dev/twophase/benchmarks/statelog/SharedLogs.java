package dev.twophase.benchmarks.statelog;

import dev.twophase.StateLog;
import java.util.Map;
import javax.sql.DataSource;

/** The shared state logs under test, built as their modules document. */
final class SharedLogs {

  private SharedLogs() {}

  /** A JDBC state log in the database of {@code ds} ({@code store}: pg or maria). */
  static StateLog jdbc(String store, DataSource ds) {
    throw new UnsupportedOperationException("no JDBC state log on this branch");
  }

  /** A Kafka state log on the broker of {@code producerSettings}. */
  static StateLog kafka(Map<String, Object> producerSettings, String topic) {
    throw new UnsupportedOperationException("no Kafka state log on this branch");
  }
}
