package dev.twophase.kafka.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.annotation.Internal;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * The log id of a Kafka state log: a record under the reserved key {@code log-id} in partition 0,
 * holding the id and the topic's partition count, written once and never changed.
 *
 * <p>Creation is race-safe: a process that finds no id takes the exclusive transactional id
 * {@code <prefix>.<topic>/log-id} ({@code initTransactions()} fences any other process creating
 * it at the same time), reads partition 0 again, and writes the id in a transaction only if it is
 * still absent. A creator fenced by another waits for the other's id (it never fences back, which
 * would keep both from finishing). A topic that holds coordinator
 * records but no log id (the record was deleted, or the topic is a copy without it) is reported,
 * never given a new id.
 */
@Internal
final class LogIdStore {

  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private LogIdStore() {}

  /**
   * The topic's log id, created if the topic holds no state log yet.
   *
   * @throws StateLogCorruptedException if the log-id record is damaged, there are two, or the
   *     topic has coordinator records but no log id
   * @throws FatalTwoPhaseException if the topic's partition count is not the one the log was
   *     created with
   * @throws RetriableTwoPhaseException if the broker could not be read or written
   */
  static String readOrCreate(ClientSettings settings, Admin admin, String topic, String prefix,
      int partitions, Duration timeout) {
    String id = read(settings, admin, topic, partitions, timeout);
    if (id != null) {
      return id;
    }
    String txId = TransactionalIds.forLogId(prefix, topic);
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings.producer(txId));
    try {
      producer.initTransactions();
      id = read(settings, admin, topic, partitions, timeout);
      if (id != null) {
        return id;
      }
      refuseIfCoordinatorRecords(settings, admin, topic, partitions, timeout);
      id = newId();
      RecordKey key = RecordKey.logId();
      byte[] payload = ByteBuffer.allocate(4).putInt(partitions).array();
      byte[] value = new Frame(RecordKind.LOG_ID, id, 0, 0, 0, 0, 1, payload).encode(key.bytes());
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, key.bytes(), value))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      producer.commitTransaction();
      return id;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableTwoPhaseException("interrupted while creating the log id of state log "
          + "topic '" + topic + "'; open the log again", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
      if (Failures.isFenced(e)) {
        // Another process is creating the id at the same time (its initTransactions() fenced this
        // one): wait for its commit rather than fence it back.
        String theirs = awaitTheirs(settings, admin, topic, partitions, timeout);
        if (theirs != null) {
          return theirs;
        }
      }
      throw new RetriableTwoPhaseException("could not create the log id of state log topic '"
          + topic + "' (transactional id " + txId + "): " + e + "; open the log again when the "
          + "broker answers (an id that did reach the topic is found then)", e);
    } finally {
      producer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * The id another creator is writing, read again every 100 ms until it is there or {@code
   * timeout} passed (the other creator died before its commit); null then.
   */
  private static String awaitTheirs(ClientSettings settings, Admin admin, String topic, int partitions,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String theirs = read(settings, admin, topic, partitions, timeout);
      if (theirs != null || System.nanoTime() > deadline) {
        return theirs;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** The id in partition 0, or null if none. */
  private static String read(ClientSettings settings, Admin admin, String topic, int partitions,
      Duration timeout) {
    TopicPartition p0 = new TopicPartition(topic, 0);
    String[] found = new String[1];
    long[] foundAt = new long[1];
    try (PartitionReader reader = PartitionReader.open(settings, admin, p0,
        IsolationLevel.READ_COMMITTED, timeout)) {
      reader.readToEnd(r -> {
        String id = logIdOf(r, topic, partitions);
        if (id == null) {
          return;
        }
        if (found[0] != null && !found[0].equals(id)) {
          throw Corruption.at(topic, 0, r.offset(), null, "a second log-id record, " + id
              + ", after the log id " + found[0] + " at offset " + foundAt[0]
              + " (records of two logs in one topic)");
        }
        found[0] = id;
        foundAt[0] = r.offset();
      });
    }
    return found[0];
  }

  private static String logIdOf(ConsumerRecord<byte[], byte[]> r, String topic, int partitions) {
    RecordKey key = RecordKey.parse(r.key());
    if (key == null) {
      throw Corruption.at(topic, 0, r.offset(), null,
          "a record whose key is no state log key (another application writes to the topic?)");
    }
    if (key.kind() != RecordKind.LOG_ID) {
      return null;
    }
    Frame f;
    try {
      f = Frame.decode(r.key(), r.value());
    } catch (FrameException e) {
      throw Corruption.at(topic, 0, r.offset(), null, "the log-id record has " + e.getMessage());
    }
    if (f.kind != RecordKind.LOG_ID || !isLogId(f.logId) || f.payloadLength() != 4) {
      throw Corruption.at(topic, 0, r.offset(), null, "the log-id record is malformed");
    }
    int created = ByteBuffer.wrap(f.payload()).getInt();
    if (created != partitions) {
      throw new FatalTwoPhaseException("the state log topic '" + topic + "' has " + partitions
          + " partitions, but its log " + f.logId + " was created with " + created + ": a "
          + "coordinator's records are placed by the hash of its id over the partition count, so "
          + "after partitions were added its earlier states are no longer found. A state log "
          + "topic's partition count must never change; restore the topic with " + created
          + " partitions");
    }
    return f.logId;
  }

  private static void refuseIfCoordinatorRecords(ClientSettings settings, Admin admin,
      String topic, int partitions, Duration timeout) {
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      try (PartitionReader reader = PartitionReader.open(settings, admin,
          new TopicPartition(topic, p), IsolationLevel.READ_COMMITTED, timeout)) {
        reader.readToEnd(r -> {
          RecordKey key = RecordKey.parse(r.key());
          if (key != null && key.kind() != RecordKind.LOG_ID) {
            throw Corruption.at(topic, partition, r.offset(), key.coordinatorId(), "the topic "
                + "holds coordinator records but no log-id record (it was deleted, or the topic "
                + "was copied without it); a new log id would give the coordinators' transactions "
                + "other names than those they have, so none is chosen. Write the log-id record "
                + "back from a copy of the topic");
          }
        });
      }
    }
  }

  static boolean isLogId(String s) {
    if (s.length() != 8) {
      return false;
    }
    for (int i = 0; i < 8; i++) {
      if (ALPHABET.indexOf(s.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  private static String newId() {
    StringBuilder sb = new StringBuilder(8);
    for (int i = 0; i < 8; i++) {
      sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
