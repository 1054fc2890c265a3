package dev.twophase.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.twophase.ApplicationState;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateLogToolTest {

  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(5));
    return StateLogTool.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), later);
  }

  /** A log with one decided checkpoint whose commit never happened, and an open transaction. */
  private void writeLog() {
    InMemoryResource<String> resource = new InMemoryResource<>();
    InMemoryParticipant<String> participant = new InMemoryParticipant<>(resource);
    participant.failNextCommits(1_000_000, new IOException("broker away"));
    try (FileStateLog log = FileStateLog.open(dir)) {
      Coordinator c = Coordinator.builder("orders", log)
          .participant("kafka", participant)
          .config(dev.twophase.CoordinatorConfig.custom().closeTimeout(Duration.ZERO)
              .commitRetryBackoff(Duration.ofSeconds(10), Duration.ofSeconds(10), 1).build())
          .applicationState(ApplicationState.of(Codecs.json(Long.class), id -> 42L, (p, id) -> {}))
          .build();
      c.output(participant).write("a");
      c.checkpoint();
      c.close();
    }
  }

  /** The name of transaction {@code sequence} of owner epoch 1 of the log written by writeLog(). */
  private String name(long sequence) {
    return "orders-kafka-" + FileStateLog.inspect(dir).logId() + "-1-" + sequence;
  }

  @Test
  void printsCheckpointsPendingAndOpenHandlesAsText() {
    writeLog();
    assertEquals(0, run(dir.toString()), err.toString(UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("coordinator orders"), text);
    assertTrue(text.contains("last checkpoint 1"), text);
    assertTrue(text.contains("pending  checkpoint 1"), text);
    assertTrue(text.contains(name(0)), text);
    assertTrue(text.contains("open     for checkpoint 2"), text);
    assertTrue(text.contains(name(1)), text);
    assertTrue(text.contains("application snapshot v1: 42"), text);
    assertTrue(text.contains("age 5m"), text);
  }

  @Test
  void printsJson() throws Exception {
    writeLog();
    assertEquals(0, run(dir.toString(), "--json", "--coordinator", "orders"), err.toString(UTF_8));
    JsonNode root = new ObjectMapper().readTree(out.toByteArray());
    JsonNode c = root.get("coordinators").get(0);
    assertEquals("orders", c.get("coordinatorId").asText());
    assertEquals(1, c.get("lastCheckpointId").asLong());
    JsonNode pending = c.get("participants").get(0).get("pending").get(0);
    assertEquals(1, pending.get("checkpointId").asLong());
    assertEquals(name(0), pending.get("handle").get("name").asText());
    assertTrue(pending.get("ageMillis").asLong() >= Duration.ofMinutes(5).toMillis() - 1000);
    assertEquals(42, c.get("application").get("value").asLong());
  }

  @Test
  void damagedLogExitsWithOneAndNamesTheFile() throws IOException {
    writeLog();
    Path segment;
    try (var files = Files.list(dir)) {
      segment = files.filter(p -> p.getFileName().toString().startsWith("segment-")).findFirst().orElseThrow();
    }
    Files.write(segment, "not a log at all".getBytes(StandardCharsets.UTF_8), StandardOpenOption.TRUNCATE_EXISTING);
    assertEquals(1, run(dir.toString()));
    assertTrue(err.toString(UTF_8).contains(segment.getFileName().toString()), err.toString(UTF_8));
  }

  @Test
  void printsTheLogId() {
    writeLog();
    assertEquals(0, run(dir.toString()), err.toString(UTF_8));
    String id = FileStateLog.inspect(dir).logId();
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("log id " + id), out.toString(UTF_8));
  }

  /** Issue 8, item 11: exit 0 with "0 segment(s)" on a directory that holds no log. */
  @Test
  void aDirectoryWithoutALogExitsWithTwoAndSaysSo() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertEquals(2, run(empty.toString()));
    assertTrue(err.toString(UTF_8).contains("no state log in " + empty.toAbsolutePath()), err.toString(UTF_8));
    assertTrue(err.toString(UTF_8).contains("holds no state log segment"), err.toString(UTF_8));

    Path etc = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(etc.resolve("hosts"), "127.0.0.1 localhost");
    err.reset();
    assertEquals(2, run(etc.toString()));
    assertTrue(err.toString(UTF_8).contains("no state log in"), err.toString(UTF_8));
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  /** Issue 8, item 11: a state of a newer format was "not written by twophase or damaged". */
  @Test
  void aStateOfANewerFormatSaysSo() {
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.open("orders").appendState(1,
          "{\"format\":99,\"coordinatorId\":\"orders\",\"somethingNew\":true}"
              .getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(1, run(dir.toString()));
    assertTrue(err.toString(UTF_8).contains("written by a newer version of twophase"), err.toString(UTF_8));
    assertTrue(err.toString(UTF_8).contains("format 99"), err.toString(UTF_8));
  }

  /** Hardening 2, item 6: a mistyped id exited 0 with "no coordinator 'ordrs' in this log". */
  @Test
  void aCoordinatorNotInTheLogExitsWithThreeAndListsTheIdsItHolds() {
    writeLog();
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.open("payments").appendState(1, "{}".getBytes(StandardCharsets.UTF_8));
    }
    for (String[] args : new String[][] {
        {dir.toString(), "--coordinator", "ordrs"}, {dir.toString(), "--json", "--coordinator", "ordrs"}}) {
      out.reset();
      err.reset();
      assertEquals(3, run(args), err.toString(UTF_8));
      assertTrue(err.toString(UTF_8).contains("no coordinator 'ordrs' in state log " + dir.toAbsolutePath()
          + "; it holds 'orders', 'payments'"), err.toString(UTF_8));
      assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
  }

  @Test
  void aCoordinatorAskedOfALogWithoutCoordinatorsExitsWithThree() {
    try (FileStateLog log = FileStateLog.open(dir)) {
      log.logId();
    }
    assertEquals(3, run(dir.toString(), "--coordinator", "orders"), err.toString(UTF_8));
    assertTrue(err.toString(UTF_8).contains("it holds no coordinator yet"), err.toString(UTF_8));
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertEquals(2, run());
    assertEquals(2, run(dir.resolve("missing").toString()));
    assertEquals(2, run(dir.toString(), "--bogus"));
    assertTrue(err.toString(UTF_8).contains("usage"), err.toString(UTF_8));
  }
}
