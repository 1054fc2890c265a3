package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The user's producer settings, checked once, and the configuration of each transactional producer
 * made from them. The participant owns {@code transactional.id} (from its pool) and the
 * serializers (records arrive as bytes from the {@code RecordMapper}); exactly-once needs
 * idempotence and {@code acks=all}, which are the defaults and may not be turned off. Settings
 * that contradict this are refused with a message that names them.
 */
@Internal
public final class ProducerSettings {

  /** Kafka's default {@code transaction.timeout.ms}. */
  static final int DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

  private final Map<String, Object> base;
  private final Duration transactionTimeout;
  private final String bootstrapServers;

  public ProducerSettings(Map<String, ?> user) {
    Objects.requireNonNull(user, "producer settings");
    Map<String, Object> m = new HashMap<>(user);
    Object bootstrap = m.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (bootstrap == null || bootstrap.toString().isBlank()) {
      throw new IllegalArgumentException("the producer settings need " + ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    }
    refuse(m, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        "the participant gives each producer an id of its pool; set transactionalIdPrefix(...) on the builder instead");
    refuse(m, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        "records reach the producer as bytes; serialize in the RecordMapper (RecordMapper.of(mapping, keySerializer, valueSerializer))");
    refuse(m, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        "records reach the producer as bytes; serialize in the RecordMapper (RecordMapper.toTopic(topic, serializer))");
    Object idempotence = m.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
    if (idempotence != null && !Boolean.parseBoolean(idempotence.toString())) {
      throw new IllegalArgumentException(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG
          + "=false: transactions need the idempotent producer; remove the setting");
    }
    Object acks = m.get(ProducerConfig.ACKS_CONFIG);
    if (acks != null && !acks.toString().trim().toLowerCase(Locale.ROOT).equals("all") && !acks.toString().trim().equals("-1")) {
      throw new IllegalArgumentException(ProducerConfig.ACKS_CONFIG + "=" + acks
          + ": a pre-committed transaction must survive a broker failure; use acks=all (the default) or remove the setting");
    }
    m.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    m.put(ProducerConfig.ACKS_CONFIG, "all");
    m.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    m.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    Object timeout = m.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
    int timeoutMs;
    try {
      timeoutMs = timeout == null ? DEFAULT_TRANSACTION_TIMEOUT_MS : Integer.parseInt(timeout.toString().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG + "=" + timeout + " is not a number of milliseconds", e);
    }
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG + "=" + timeoutMs + " must be positive");
    }
    m.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
    this.base = Map.copyOf(m);
    this.transactionTimeout = Duration.ofMillis(timeoutMs);
    this.bootstrapServers = bootstrap.toString();
  }

  private static void refuse(Map<String, Object> m, String key, String why) {
    if (m.containsKey(key)) {
      throw new IllegalArgumentException("the producer settings must not set " + key + ": " + why);
    }
  }

  /**
   * The configuration of a producer for {@code transactionalId}; its client id is the user's
   * {@code client.id} (default {@code twophase}) followed by the transactional id, so that the
   * producers' metrics and threads do not clash.
   */
  public Map<String, Object> forTransactionalId(String transactionalId) {
    Map<String, Object> m = new HashMap<>(base);
    m.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    Object clientId = base.get(ProducerConfig.CLIENT_ID_CONFIG);
    m.put(ProducerConfig.CLIENT_ID_CONFIG, (clientId == null ? "twophase" : clientId) + "-" + transactionalId);
    return m;
  }

  /** The settings of the admin client the participant uses to ask the broker about transactions. */
  public Map<String, Object> forAdmin() {
    Map<String, Object> m = new HashMap<>();
    // Connection and security settings carry over; producer-only settings would be warned about.
    for (Map.Entry<String, Object> e : base.entrySet()) {
      String k = e.getKey();
      if (k.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) || k.startsWith("security.") || k.startsWith("sasl.")
          || k.startsWith("ssl.") || k.equals(ProducerConfig.CLIENT_DNS_LOOKUP_CONFIG)
          || k.equals(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)) {
        m.put(k, e.getValue());
      }
    }
    return m;
  }

  /** {@code transaction.timeout.ms}: after it the broker aborts an open or pre-committed transaction. */
  public Duration transactionTimeout() {
    return transactionTimeout;
  }

  /** {@code max.request.size}: the largest record the producer sends. */
  public int maxRequestSize() {
    Object v = base.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
    return v == null ? 1024 * 1024 : Integer.parseInt(v.toString().trim());
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }
}
