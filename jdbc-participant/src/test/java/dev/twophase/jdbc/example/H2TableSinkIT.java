package dev.twophase.jdbc.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.jdbc.JdbcParticipant;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's H2 sink, end to end under a coordinator, checked by its own verifier. */
class H2TableSinkIT {

  record Order(long id, String customer, BigDecimal amount) {}

  static Order order(long i) {
    return new Order(i, "c-" + (i % 97), BigDecimal.valueOf(100 + i, 2));
  }

  @TempDir Path tmp;

  @Test
  void everyOrderExactlyOnceAndTheCheckSeesADuplicate() throws Exception {
    JdbcParticipant<Order> table = H2TableSink.participant(tmp.resolve("h2"),
        new H2TableSink.OrderColumns<>() {
          public long id(Order o) {
            return o.id();
          }

          public String customer(Order o) {
            return o.customer();
          }

          public BigDecimal amount(Order o) {
            return o.amount();
          }
        });
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        Coordinator coordinator = Coordinator.builder("demo", log).participant("table", table)
            .config(CoordinatorConfig.custom().checkpointEveryRecords(40).build()).build()) {
      Output<Order> out = coordinator.output(table);
      for (long i = 0; i < 100; i++) {
        out.write(order(i));
        coordinator.maybeCheckpoint();
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(30));
    }
    H2TableSink.Check check = H2TableSink.check(tmp.resolve("h2"), 100,
        i -> order(i).customer() + "," + order(i).amount().toPlainString());
    assertTrue(check.ok(), check.describe());
    assertEquals(100, check.rows());
    H2TableSink.Check shorter = H2TableSink.check(tmp.resolve("h2"), 99,
        i -> order(i).customer() + "," + order(i).amount().toPlainString());
    assertEquals(1, shorter.unexpected(), shorter.describe());
  }
}
