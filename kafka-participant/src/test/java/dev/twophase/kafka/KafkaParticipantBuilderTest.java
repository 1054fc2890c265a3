package dev.twophase.kafka;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The builder's own checks: a missing required setting and a transactional id prefix outside the
 * documented characters fail with an {@link IllegalArgumentException} that names the setting and
 * what it is for. {@code build()} opens nothing, so no broker is needed.
 */
class KafkaParticipantBuilderTest {

  private static final Map<String, Object> SETTINGS =
      Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");

  @Test
  void aMissingTransactionalIdPrefixIsNamed() {
    var builder = KafkaParticipant.<String>builder(SETTINGS)
        .records(RecordMapper.toTopic("t", new StringSerializer()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertTrue(e.getMessage().contains("transactionalIdPrefix(String) is required"), e.getMessage());
    assertTrue(e.getMessage().contains("transactional id"), e.getMessage());
  }

  @Test
  void missingRecordsAreNamed() {
    var builder = KafkaParticipant.<String>builder(SETTINGS).transactionalIdPrefix("app");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertTrue(e.getMessage().contains("records(RecordMapper) is required"), e.getMessage());
    assertTrue(e.getMessage().contains("Kafka record"), e.getMessage());
  }

  @Test
  void aPrefixOutsideTheDocumentedCharactersIsRefusedWhereItIsSet() {
    var builder = KafkaParticipant.<String>builder(SETTINGS);
    for (String bad : new String[] {"a b", "", "app/1", "ä", "a:b"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> builder.transactionalIdPrefix(bad), bad);
      assertTrue(e.getMessage().contains("transactionalIdPrefix '" + bad + "'"), e.getMessage());
      assertTrue(e.getMessage().contains("letters, digits, '.', '_' and '-'"), e.getMessage());
    }
  }

  @Test
  void aCompleteBuilderBuilds() {
    KafkaParticipant<String> p = KafkaParticipant.<String>builder(SETTINGS)
        .records(RecordMapper.toTopic("t", new StringSerializer()))
        .transactionalIdPrefix("App-1.x_y")
        .build();
    p.close();
  }
}
