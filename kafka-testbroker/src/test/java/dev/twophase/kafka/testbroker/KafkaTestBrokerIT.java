package dev.twophase.kafka.testbroker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** The broker and the checker as a user's test sees them: transactions, open and committed. */
class KafkaTestBrokerIT {

  @TempDir Path tmp;

  @Test
  void readCommittedSeesCommittedRecordsAndWaitsForOpenTransactions() throws Exception {
    Path dir = tmp.resolve("kafka");
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir, 2, Map.of())) {
      assertEquals(2, broker.transactionVersion());
      assertTrue(Files.isDirectory(broker.directory()));
      broker.createTopic("t", 1);
      broker.createTopic("t", 1); // exists: no error
      String bs = broker.bootstrapServers();
      try (KafkaProducer<String, String> committed = producer(bs, "a");
          KafkaProducer<String, String> open = producer(bs, "b")) {
        committed.initTransactions();
        committed.beginTransaction();
        committed.send(new ProducerRecord<>("t", "1")).get();
        committed.send(new ProducerRecord<>("t", "2")).get();
        committed.commitTransaction();

        open.initTransactions();
        open.beginTransaction();
        open.send(new ProducerRecord<>("t", "3")).get();
        open.flush();

        assertEquals(List.of("1", "2"), ReadCommitted.visibleNow(bs, "t", Duration.ofSeconds(30)));
        IllegalStateException stillOpen = assertThrows(IllegalStateException.class,
            () -> ReadCommitted.values(bs, "t", Duration.ofSeconds(1)));
        assertTrue(stillOpen.getMessage().contains("still open"), stillOpen.getMessage());

        open.abortTransaction();
        assertEquals(List.of("1", "2"), ReadCommitted.values(bs, "t", Duration.ofSeconds(30)));
      }
    }
    assertFalse(Files.exists(dir), "close() deletes the data directory");
  }

  private static KafkaProducer<String, String> producer(String bootstrapServers, String transactionalId) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId),
        new StringSerializer(), new StringSerializer());
  }
}
