package dev.twophase.kafka.internal.statelog;

import dev.twophase.annotation.Internal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The user's client properties of a Kafka state log, checked once, and the configuration of each
 * producer, consumer and admin client made from them. A property goes to the clients that know it
 * (and to all of them if none does, as a plugin's setting might be). The log owns the
 * transactional id, the serializers, the isolation level and the consumer's group; durability
 * needs {@code acks=all} and idempotence, forced, and refused if set otherwise.
 */
@Internal
public final class ClientSettings {

  /** The log's default {@code transaction.timeout.ms}: its transactions are one append each. */
  static final int DEFAULT_TRANSACTION_TIMEOUT_MS = 20_000;

  /** A reader's {@code fetch.max.wait.ms}: see {@link #consumer}. */
  static final int READER_FETCH_MAX_WAIT_MS = 20;

  private static final Set<String> ALL_NAMES = new HashSet<>();
  /** Numbers the clients of this JVM, so that two never share a client id (and its metrics). */
  private static final AtomicLong CLIENTS = new AtomicLong();

  static {
    ALL_NAMES.addAll(ProducerConfig.configNames());
    ALL_NAMES.addAll(ConsumerConfig.configNames());
    ALL_NAMES.addAll(AdminClientConfig.configNames());
  }

  private final Map<String, Object> user;
  private final String clientId;

  public ClientSettings(Map<String, ?> properties) {
    Objects.requireNonNull(properties, "client properties");
    Map<String, Object> m = new HashMap<>(properties);
    Object bootstrap = m.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (bootstrap == null || bootstrap.toString().isBlank()) {
      throw new IllegalArgumentException(
          "the client properties of a KafkaStateLog need " + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    }
    for (String owned : new String[] {ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, ConsumerConfig.GROUP_ID_CONFIG,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG}) {
      if (m.containsKey(owned)) {
        throw new IllegalArgumentException("the client properties of a KafkaStateLog must not set "
            + owned + ": the log sets it itself (transactional ids: see "
            + "KafkaStateLog.Builder.transactionalIdPrefix)");
      }
    }
    Object idempotence = m.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
    if (idempotence != null && !Boolean.parseBoolean(idempotence.toString().trim())) {
      throw new IllegalArgumentException(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG
          + "=false: the state log's transactions need the idempotent producer; remove the setting");
    }
    Object acks = m.get(ProducerConfig.ACKS_CONFIG);
    if (acks != null && !acks.toString().trim().toLowerCase(Locale.ROOT).equals("all")
        && !acks.toString().trim().equals("-1")) {
      throw new IllegalArgumentException(ProducerConfig.ACKS_CONFIG + "=" + acks
          + ": a decided checkpoint must survive a broker failure; use acks=all (the default) or "
          + "remove the setting");
    }
    Object maxRequest = m.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    if (maxRequest != null && parseInt(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequest)
        < StateChunks.CHUNK_BYTES + Frame.OVERHEAD + 4096) {
      throw new IllegalArgumentException(ProducerConfig.MAX_REQUEST_SIZE_CONFIG + "=" + maxRequest
          + " is too small for the state log's records (states are written in chunks of "
          + StateChunks.CHUNK_BYTES + " bytes): raise it to at least "
          + (StateChunks.CHUNK_BYTES + Frame.OVERHEAD + 4096) + " or remove the setting");
    }
    Object timeout = m.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    if (timeout != null && parseInt(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeout) <= 0) {
      throw new IllegalArgumentException(
          ProducerConfig.TRANSACTION_TIMEOUT_CONFIG + "=" + timeout + " must be positive");
    }
    Object id = m.remove(ProducerConfig.CLIENT_ID_CONFIG);
    this.clientId = id == null ? "twophase-log" : id.toString();
    this.user = Map.copyOf(m);
  }

  private static int parseInt(String key, Object value) {
    try {
      return Integer.parseInt(value.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + value + " is not a number", e);
    }
  }

  /**
   * The configuration of the transactional producer {@code transactionalId}; its client id is
   * the user's {@code client.id} (default {@code twophase-log}), the transactional id and a number
   * unique in this JVM.
   */
  Map<String, Object> producer(String transactionalId) {
    Map<String, Object> m = only(ProducerConfig.configNames());
    m.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, DEFAULT_TRANSACTION_TIMEOUT_MS);
    m.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    m.put(ProducerConfig.ACKS_CONFIG, "all");
    m.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    m.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    m.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    m.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-" + transactionalId + "-"
        + CLIENTS.incrementAndGet());
    return m;
  }

  /**
   * The configuration of a consumer that reads partitions it is assigned, at {@code isolation}.
   * Such a consumer reads to an end it knows and never waits for new records, so the broker need
   * not hold its fetches back for data ({@code fetch.max.wait.ms}, {@value #READER_FETCH_MAX_WAIT_MS}
   * unless the properties set it): at the broker's default of 500 ms, the fetch that the consumer
   * sends ahead at the end delays its {@code close()} by that long, and a claim by twice that.
   */
  Map<String, Object> consumer(IsolationLevel isolation, String purpose) {
    Map<String, Object> m = only(ConsumerConfig.configNames());
    m.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, READER_FETCH_MAX_WAIT_MS);
    m.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT));
    m.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    m.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    m.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    m.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    m.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + purpose + "-"
        + CLIENTS.incrementAndGet());
    return m;
  }

  /** The configuration of the log's admin client. */
  Map<String, Object> admin(String topic) {
    Map<String, Object> m = only(AdminClientConfig.configNames());
    m.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin-" + topic + "-"
        + CLIENTS.incrementAndGet());
    return m;
  }

  private Map<String, Object> only(Set<String> names) {
    Map<String, Object> m = new HashMap<>();
    user.forEach((k, v) -> {
      if (names.contains(k) || !ALL_NAMES.contains(k)) {
        m.put(k, v);
      }
    });
    return m;
  }
}
