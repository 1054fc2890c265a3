package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.jdbc.JdbcParticipant;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's H2 sink, end to end under a coordinator, and its check. */
class TableSinkIT {

  @TempDir Path tmp;

  @Test
  void everyOrderExactlyOnceAndTheCheckSeesADuplicateAndAChangedRow() throws Exception {
    Path dir = tmp.resolve("table");
    JdbcParticipant<Orders.Order> table = TableSink.participant(dir);
    try (FileStateLog log = FileStateLog.open(tmp.resolve("state"));
        Coordinator coordinator = Coordinator.builder("demo", log).participant("table", table)
            .config(CoordinatorConfig.custom().checkpointEveryRecords(40).build()).build()) {
      Output<Orders.Order> out = coordinator.output(table);
      for (long i = 0; i < 100; i++) {
        out.write(Orders.order(i));
        coordinator.maybeCheckpoint();
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(30));
    }
    SinkCheck check = TableSink.check(dir, 100);
    assertTrue(check.ok(), check.toString());
    assertEquals(100, check.records());
    assertEquals(new TableSink.State(100, 0), TableSink.state(dir));

    SinkCheck shorter = TableSink.check(dir, 99);
    assertEquals(1, shorter.unexpected(), shorter.toString());

    try (Connection c = TableSink.dataSource(dir).getConnection(); Statement s = c.createStatement()) {
      s.executeUpdate("INSERT INTO orders (id, customer, amount) VALUES (7, 'c-7', 1.00)");
    }
    SinkCheck twice = TableSink.check(dir, 100);
    assertFalse(twice.ok());
    assertEquals(1, twice.duplicates(), twice.toString());
    assertEquals(0, twice.lost());
  }
}
