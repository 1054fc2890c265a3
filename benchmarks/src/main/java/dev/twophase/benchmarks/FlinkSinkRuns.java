package dev.twophase.benchmarks;

import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;

/** One kind of {@link FlinkSinkComparison}: Flink's sink and ours, built afresh per run, and the read-back. */
interface FlinkSinkRuns {
  /** The two sinks' names: Flink's, then ours. */
  String[] names();

  default String name(boolean ours) {
    return names()[ours ? 1 : 0];
  }

  /** A sink for one run, writing where {@link #committed} reads. */
  Sink<String> sink(boolean ours, int run) throws IOException;

  /** The records the run's sink committed, counted by reading them back. */
  long committed(boolean ours, int run) throws IOException;

  /** Where the run wrote, for the report line. */
  String where(boolean ours, int run) throws IOException;
}
