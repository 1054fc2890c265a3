package dev.twophase.kafka;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Turns an application record into the Kafka record the participant sends: topic, partition (or
 * {@code null} for the producer's partitioner), key and value bytes, timestamp and headers.
 *
 * <p>Called on the application thread, once per record, inside {@code Output.write}. A mapper that
 * throws fails that record alone: it is not sent, the transaction stays usable, and the
 * application gets the exception. Must not keep the returned record.
 *
 * @param <IN> the application's record type
 */
@PublicEvolving
@FunctionalInterface
public interface RecordMapper<IN> {

  /** The Kafka record for {@code record}; never {@code null}. */
  ProducerRecord<byte[], byte[]> toRecord(IN record) throws Exception;

  /** Values to one topic, no key: {@code valueSerializer} encodes the record. */
  static <IN> RecordMapper<IN> toTopic(String topic, Serializer<? super IN> valueSerializer) {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(valueSerializer, "valueSerializer");
    return record -> new ProducerRecord<>(topic, null, valueSerializer.serialize(topic, record));
  }

  /**
   * A typed {@link ProducerRecord} from {@code mapping}, its key and value encoded with the given
   * serializers (which receive the record's topic and headers, as a producer's would).
   */
  static <IN, K, V> RecordMapper<IN> of(
      Function<? super IN, ProducerRecord<K, V>> mapping, Serializer<? super K> keySerializer,
      Serializer<? super V> valueSerializer) {
    Objects.requireNonNull(mapping, "mapping");
    Objects.requireNonNull(keySerializer, "keySerializer");
    Objects.requireNonNull(valueSerializer, "valueSerializer");
    return record -> {
      ProducerRecord<K, V> r = Objects.requireNonNull(mapping.apply(record), "the mapping returned null");
      byte[] key = r.key() == null ? null : keySerializer.serialize(r.topic(), r.headers(), r.key());
      byte[] value = r.value() == null ? null : valueSerializer.serialize(r.topic(), r.headers(), r.value());
      return new ProducerRecord<>(r.topic(), r.partition(), r.timestamp(), key, value, r.headers());
    };
  }
}
