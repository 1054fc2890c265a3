package dev.twophase.kafka.testbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker as a child process: it prints its address, serves, and stops on SIGTERM or the end of its input. */
class KafkaTestBrokerMainIT {

  @TempDir Path tmp;

  @Test
  void aChildBrokerServesAndStopsWhenItsInputEnds() throws Exception {
    Path dir = tmp.resolve("kafka");
    Process broker = start(dir, "--topic", "orders:2");
    try {
      String bootstrap = address(broker);
      produce(bootstrap, "orders", "1");
      assertEquals(List.of("1"), ReadCommitted.values(bootstrap, "orders", Duration.ofSeconds(30)));
      broker.getOutputStream().close();
      assertEquals(0, broker.waitFor(), "exit status after the end of standard input; " + log());
      assertFalse(Files.exists(dir), "the data directory is deleted");
    } finally {
      broker.destroyForcibly().waitFor();
    }
  }

  @Test
  void aChildBrokerStopsCleanlyOnSigterm() throws Exception {
    Path dir = tmp.resolve("kafka");
    Process broker = start(dir);
    try {
      String bootstrap = address(broker);
      produce(bootstrap, "created-by-no-one", null);
      broker.destroy(); // SIGTERM
      assertEquals(143, broker.waitFor(), "exit status after SIGTERM; " + log());
      assertFalse(Files.exists(dir), "the data directory is deleted by the shutdown hook");
    } finally {
      broker.destroyForcibly().waitFor();
    }
  }

  @Test
  void badArgumentsExitWithUsage() throws Exception {
    Process broker = start(tmp.resolve("kafka"), "--transaction-version", "3");
    assertEquals(KafkaTestBrokerMain.USAGE, broker.waitFor());
    assertTrue(log().contains("--transaction-version is 1 or 2, not '3'"), log());
  }

  private Process start(Path dir, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        KafkaTestBrokerMain.class.getName(), "--dir", dir.toString()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(tmp.resolve("stderr").toFile()).start();
  }

  private String log() throws Exception {
    return Files.readString(tmp.resolve("stderr"), StandardCharsets.UTF_8);
  }

  /** The first line of standard output: the bootstrap address. */
  private String address(Process broker) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(broker.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertNotNull(line, "the broker ended without printing its address; " + log());
    assertTrue(line.matches("127\\.0\\.0\\.1:[0-9]+"), "not an address: '" + line + "'");
    return line;
  }

  /** Produces {@code value} to {@code topic} in a transaction; with a null value only initializes one. */
  private static void produce(String bootstrap, String topic, String value) throws Exception {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "main-it"),
        new StringSerializer(), new StringSerializer())) {
      producer.initTransactions();
      if (value != null) {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, value)).get();
        producer.commitTransaction();
      }
    }
  }
}
