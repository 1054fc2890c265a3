package dev.twophase.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file sinks' check must see what exactly-once forbids: duplicates, losses and foreign records. */
class FileSinksTest {

  @TempDir Path dir;

  private static List<String> ledger(long from, long to) {
    List<String> lines = new ArrayList<>();
    for (long i = from; i < to; i++) {
      lines.add(Orders.ledgerLine(Orders.order(i)));
    }
    return lines;
  }

  private static List<String> orders(long from, long to) {
    List<String> lines = new ArrayList<>();
    for (long i = from; i < to; i++) {
      Orders.Order o = Orders.order(i);
      lines.add("{\"id\":" + i + ",\"customer\":\"" + o.customer() + "\",\"amount\":" + o.amount() + "}");
    }
    return lines;
  }

  @Test
  void everyRecordOnceIsOkOnceNothingIsInProgress() throws IOException {
    Files.write(dir.resolve("part-a-0.csv"), ledger(0, 60));
    Files.write(dir.resolve("part-a-1.csv"), ledger(60, 100));
    Files.write(dir.resolve(".part-b-0.csv.inprogress"), ledger(0, 100)); // invisible to readers; counted as left
    SinkCheck check = FileSinks.check("ledger", dir, 100, false);
    assertEquals(100, check.records());
    assertEquals(1, check.left(), "the in-progress file is left unfinished");
    assertEquals(0, check.duplicates());
    assertEquals(0, check.lost());
    Files.delete(dir.resolve(".part-b-0.csv.inprogress"));
    assertTrue(FileSinks.check("ledger", dir, 100, false).ok());
  }

  @Test
  void duplicatesAndLossesAreFound() throws IOException {
    Files.write(dir.resolve("part-a-0.csv"), ledger(0, 60));
    Files.write(dir.resolve("part-a-1.csv"), ledger(50, 90));
    SinkCheck check = FileSinks.check("ledger", dir, 100, false);
    assertFalse(check.ok());
    assertEquals(10, check.duplicates());
    assertEquals(10, check.lost());
  }

  @Test
  void changedAndForeignRecordsAreFound() throws IOException {
    List<String> lines = orders(0, 10);
    lines.set(3, lines.get(3).replace("\"c-3\"", "\"c-4\""));
    lines.add("{\"id\":10,\"customer\":\"c-10\",\"amount\":1.00}"); // beyond the input
    lines.add("{\"id\":4,\"custo"); // a torn line
    Files.write(dir.resolve("part-a-0.jsonl"), lines);
    SinkCheck check = FileSinks.check("orders", dir, 10, true);
    assertFalse(check.ok());
    assertEquals(3, check.unexpected(), check.toString());
    assertEquals(0, check.lost());
  }

  @Test
  void jsonWithTheSameValuesInAnotherFormIsAccepted() throws IOException {
    Orders.Order o = Orders.order(0);
    Files.writeString(dir.resolve("part-a-0.jsonl"),
        "{\"amount\":" + o.amount().stripTrailingZeros().toPlainString() + ",\"customer\":\"c-0\",\"id\":0}\n");
    assertTrue(FileSinks.check("orders", dir, 1, true).ok());
  }

  @Test
  void theJobsJsonIsWhatJacksonWritesForAnOrder() throws IOException {
    ObjectMapper jackson = JsonMapper.builder().build();
    for (long i : new long[] {0, 1, 96, 12_345, 99_900, 199_999}) {
      Orders.Order o = Orders.order(i);
      assertEquals(jackson.writeValueAsString(o), Orders.json(o));
    }
  }
}
