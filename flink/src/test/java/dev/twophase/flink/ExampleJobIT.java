package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job shaped like the example of {@code docs/flink.md} (which {@code OrdersJobIT} in the docs
 * module runs as the page shows it), on a MiniCluster at parallelism 2 with fast checkpoints: two
 * participants with their own mappers, one of which takes only some records (its mapper returns
 * null for the others).
 */
class ExampleJobIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(2);

  @TempDir
  Path tmp;

  /** An order. */
  public record Order(long id, long cents) {
    String csv() {
      return id + "," + cents;
    }
  }

  @Test
  void theGuidesExampleJob() throws Exception {
    long n = 10_000;
    String dir = tmp.toString();
    StreamExecutionEnvironment env = Jobs.env(2, 100, 0, null);

    // --- as in docs/flink.md
    TwoPhaseSink<Order> sink = TwoPhaseSink.<Order>builder("orders")
        .participant("all",
            () -> FileParticipant.builder(Path.of(dir, "all"), RecordEncoders.lines()).build(),
            Order::csv)
        .participant("large",
            () -> FileParticipant.builder(Path.of(dir, "large"), RecordEncoders.lines()).build(),
            order -> order.cents() >= 1_000_000 ? order.csv() : null)
        .build();
    // ---

    env.fromSequence(0, n - 1).map(i -> new Order(i, (i % 7) * 400_000L)).uid("orders")
        .sinkTo(sink).uid("orders-sink");
    env.execute("example");

    Map<String, Integer> all = CommittedFiles.lineCounts(tmp.resolve("all"));
    Map<String, Integer> large = CommittedFiles.lineCounts(tmp.resolve("large"));
    Map<String, Integer> expectedAll = new TreeMap<>();
    Map<String, Integer> expectedLarge = new TreeMap<>();
    for (long i = 0; i < n; i++) {
      Order o = new Order(i, (i % 7) * 400_000L);
      expectedAll.put(o.csv(), 1);
      if (o.cents() >= 1_000_000) {
        expectedLarge.put(o.csv(), 1);
      }
    }
    assertEquals(expectedAll, all);
    assertEquals(expectedLarge, large);
    assertEquals(List.of(), CommittedFiles.inProgress(tmp));
  }
}
