package dev.twophase.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimpleContextsTest {

  @Test
  void transactionNameFollowsTheDocumentedFormat() {
    SimpleTransactionContext<Void> context =
        new SimpleTransactionContext<>("coord.1", "sink_a", 7, 3, 12, Optional.empty());
    assertEquals("coord.1-sink_a-7-12", context.transactionName());
    assertEquals("coord.1-sink_a-", context.transactionNamePrefix());
    assertTrue(context.isOwnTransactionName("coord.1-sink_a-1-0"));
  }

  @Test
  void namesThatNeedEscapingGetAHashSoDistinctNamesStayDistinct() {
    String a = SimpleTransactionContext.transactionName("a", "b-c", 1, 0);
    String b = SimpleTransactionContext.transactionName("a-b", "c", 1, 0);
    String c = SimpleTransactionContext.transactionName("a_b", "c", 1, 0);
    assertEquals(3, java.util.Set.of(a, b, c).size(), a + " " + b + " " + c);
    assertTrue(a.matches("a-b_c_[0-9a-f]{8}-1-0"), a);
    assertTrue(SimpleTransactionContext.transactionNamePrefix("my coord/:x", "kafka@out!")
        .matches("my_coord__x_[0-9a-f]{8}-kafka_out__[0-9a-f]{8}-"));
  }

  @Test
  void ownershipNeedsTheExactPrefixAndAnEpochSequenceSuffix() {
    SimpleTransactionContext<Void> mine = new SimpleTransactionContext<>("c", "p", 1, 1, 0, Optional.empty());
    SimpleTransactionContext<Void> other = new SimpleTransactionContext<>("c-p", "q", 1, 1, 0, Optional.empty());
    assertTrue(mine.isOwnTransactionName(mine.transactionName()));
    assertFalse(mine.isOwnTransactionName(other.transactionName()));
    assertFalse(mine.isOwnTransactionName("c-p-x-1"));
    assertFalse(mine.isOwnTransactionName("c-p-1-2-3"));
    assertFalse(mine.isOwnTransactionName(null));
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
