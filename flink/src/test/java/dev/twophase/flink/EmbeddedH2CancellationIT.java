package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDBC participant on an embedded H2 database with flink.md's URL, through repeated
 * cancellations: an operator upstream of the sink fails its task six times; a rebalance puts the
 * sink's subtasks in tasks of their own, in the failed one's region, so every restart cancels
 * (interrupts) them while they write, pre-commit and commit. The job
 * finishes with every row once and nothing prepared.
 */
class EmbeddedH2CancellationIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @Test
  void everyRowOnceThroughCancellations() throws Exception {
    long n = 40_000;
    int failures = 6;
    String key = "h2-cancellations";
    FailingMap.plan(key, failures);
    H2Table table = new H2Table(tmp);
    StreamExecutionEnvironment env = Jobs.env(2, 50, failures + 2, null);
    Jobs.numbers(env, n)
        .map(new FailingMap(key)).uid("failing")
        .rebalance() // one failover region: every failure cancels both sink subtasks, in their own tasks
        .sinkTo(TwoPhaseSink.<String>builder("h2-cancellations")
            .participant("db", table.participant())
            .build()).uid("sink");
    env.execute("h2-cancellations");

    assertEquals(0, FailingMap.left(key), "every planned failure happened");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(table.rowCounts(), n), "rows");
    assertEquals(List.of(), table.inDoubt(), "no transaction left prepared");
  }
}
