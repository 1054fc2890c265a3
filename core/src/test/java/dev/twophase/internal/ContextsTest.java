package dev.twophase.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContextsTest {

  @Test
  void transactionNameFollowsTheDocumentedFormat() {
    Contexts.Transaction<Void> context =
        new Contexts.Transaction<>("coord.1", "sinkA", 7, 3, 12, Optional.empty());
    assertEquals("coord.1-sinkA-7-12", context.transactionName());
    assertEquals("coord.1-sinkA-", context.transactionNamePrefix());
    assertTrue(context.isOwnTransactionName("coord.1-sinkA-1-0"));
  }

  @Test
  void namesThatNeedEscapingGetAHashSoDistinctNamesStayDistinct() {
    String a = Contexts.namePrefix("a", "b-c") + "1-0";
    String b = Contexts.namePrefix("a-b", "c") + "1-0";
    String c = Contexts.namePrefix("a_b", "c") + "1-0";
    assertEquals(3, java.util.Set.of(a, b, c).size(), a + " " + b + " " + c);
    assertTrue(a.matches("a-b_c_[0-9a-f]{8}-1-0"), a);
    assertTrue(Contexts.namePrefix("my coord/:x", "kafka@out!")
        .matches("my_coord__x_[0-9a-f]{8}-kafka_out__[0-9a-f]{8}-"));
  }

  @Test
  void aPlainNameCannotImitateAnEscapedOne() {
    String escaped = Contexts.namePrefix("a-b", "c");
    String imitation = escaped.substring(0, escaped.indexOf('-')); // "a_b_<crc of a-b>", literally
    assertNotEquals(escaped, Contexts.namePrefix(imitation, "c"));
  }

  @Test
  void ownershipNeedsTheExactPrefixAndAnEpochSequenceSuffix() {
    Contexts.Transaction<Void> mine = new Contexts.Transaction<>("c", "p", 1, 1, 0, Optional.empty());
    Contexts.Transaction<Void> other = new Contexts.Transaction<>("c-p", "q", 1, 1, 0, Optional.empty());
    assertTrue(mine.isOwnTransactionName(mine.transactionName()));
    assertFalse(mine.isOwnTransactionName(other.transactionName()));
    assertFalse(mine.isOwnTransactionName("c-p-x-1"));
    assertFalse(mine.isOwnTransactionName("c-p-1-2-3"));
    assertFalse(mine.isOwnTransactionName(null));
  }

  @Test
  void recoveryContextCopiesItsHandles() {
    List<String> handled = new ArrayList<>(List.of("a"));
    Contexts.Recovery<String, Void> context =
        new Contexts.Recovery<>("c", "p", 1, handled, Optional.empty(), 0);
    handled.add("b");
    assertEquals(List.of("a"), context.handledTransactions());
  }

  @Test
  void nullUserContextIsRefused() {
    assertThrows(
        NullPointerException.class, () -> new Contexts.Transaction<Void>("c", "p", 1, 1, 0, null));
  }
}
