package dev.twophase.docs.snippets.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.docs.snippets.flink.OrdersJob.Order;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * flink.md's example job, run as shown on a local Flink (the test JVM's execution environment)
 * with a generated source: every order once in {@code all}, the large ones once in {@code large},
 * nothing left in progress.
 */
class OrdersJobIT {

  private static final long N = 1_000;

  @TempDir Path tmp;

  @Test
  void theExampleJobWritesEveryOrderOnceAndTheLargeOnesOnceMore() throws Exception {
    DataGeneratorSource<Order> orders = new DataGeneratorSource<>(
        i -> new Order(i, (i % 7) * 400_000L), N, TypeInformation.of(Order.class));
    OrdersJob.run(orders, tmp.toString());

    List<String> all = LongStream.range(0, N).mapToObj(i -> new Order(i, (i % 7) * 400_000L))
        .map(Order::csv).sorted().toList();
    List<String> large = LongStream.range(0, N).mapToObj(i -> new Order(i, (i % 7) * 400_000L))
        .filter(o -> o.cents() >= 1_000_000).map(Order::csv).sorted().toList();
    assertEquals(all, committedLines(tmp.resolve("all")));
    assertEquals(large, committedLines(tmp.resolve("large")));
    assertEquals(List.of(), inProgress(tmp));
  }

  /** The lines of every committed part ({@code part-*}) under {@code directory}, sorted. */
  private static List<String> committedLines(Path directory) throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path part : files.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
        lines.addAll(Files.readAllLines(part));
      }
    }
    return lines.stream().sorted().toList();
  }

  private static List<Path> inProgress(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".inprogress")).toList();
    }
  }
}
