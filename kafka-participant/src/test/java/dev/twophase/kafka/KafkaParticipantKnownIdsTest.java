package dev.twophase.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What start-up describes on a broker that cannot list transactions. */
class KafkaParticipantKnownIdsTest {

  private static final String BASE = "shop-orders-kafka-ab12cd34-tid-";

  private static KafkaTransaction handle(String id) {
    return new KafkaTransaction("orders-kafka-ab12cd34-3-1", id, 1000, (short) 0, true, true);
  }

  @Test
  void thePoolsOfTheEpochsTheHandlesShowAndTheHandlesIds() {
    assertEquals(Set.of(BASE + "e3-0", BASE + "e3-1", BASE + "e3-7", BASE + "e5-0", BASE + "e5-1", BASE + "0",
            BASE + "1"),
        KafkaParticipant.knownIds(BASE, List.of(handle(BASE + "e3-7"), handle(BASE + "e5-1"), handle(BASE + "1"),
            handle("another-prefix-tid-e3-0")), 2));
    assertEquals(Set.of(), KafkaParticipant.knownIds(BASE, List.of(), 4));
  }
}
