package dev.twophase.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimpleContextsTest {

  @Test
  void transactionNameFollowsTheDocumentedFormat() {
    SimpleTransactionContext<Void> context =
        new SimpleTransactionContext<>("coord.1", "sink_a-b", 7, 3, 12, Optional.empty());
    assertEquals("coord.1-sink_a-b-7-12", context.transactionName());
  }

  @Test
  void unsafeCharactersInBothNamesBecomeUnderscores() {
    assertEquals(
        "my_coord__x-kafka_out_-2-0",
        SimpleTransactionContext.transactionName("my coord/:x", "kafka@out!", 2, 0));
    assertEquals("a_b-c_d-", SimpleTransactionContext.transactionNamePrefix("a b", "c\u00e9d"));
  }

  @Test
  void recoveryContextCopiesItsHandles() {
    List<String> handled = new ArrayList<>(List.of("a"));
    SimpleRecoveryContext<String, Void> context =
        new SimpleRecoveryContext<>("c", "p", 1, handled, Optional.empty(), 0);
    handled.add("b");
    assertEquals(List.of("a"), context.handledTransactions());
  }

  @Test
  void nullUserContextIsRefused() {
    assertThrows(
        NullPointerException.class, () -> new SimpleTransactionContext<Void>("c", "p", 1, 1, 0, null));
  }
}
