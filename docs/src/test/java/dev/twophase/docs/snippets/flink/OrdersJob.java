package dev.twophase.docs.snippets.flink;

// snippet: flink-example-job
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.flink.TwoPhaseSink;
import java.nio.file.Path;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public final class OrdersJob {

  public record Order(long id, long cents) {
    String csv() { return id + "," + cents; }
  }

  /** Runs the job on {@code orders}, your source: a KafkaSource, a FileSource, ... */
  public static void run(Source<Order, ?, ?> orders, String dir) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(10_000);               // exactly once needs checkpoints

    // dir ("/data/orders", say) is a String, not a Path: the factories are shipped serialized
    TwoPhaseSink<Order> sink = TwoPhaseSink.<Order>builder("orders")
        .participant("all",                        // every order, as a CSV line
            () -> FileParticipant.builder(Path.of(dir, "all"), RecordEncoders.lines()).build(),
            Order::csv)
        .participant("large",                      // only the large ones; null: nothing for this order
            () -> FileParticipant.builder(Path.of(dir, "large"), RecordEncoders.lines()).build(),
            order -> order.cents() >= 1_000_000 ? order.csv() : null)
        .build();

    env.fromSource(orders, WatermarkStrategy.noWatermarks(), "orders")
        .sinkTo(sink).uid("orders-sink");          // a fixed uid, so that savepoints find the state
    env.execute("orders");
  }
}
// end snippet
