package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.TestContexts;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TransactionNamesTest {

  @Test
  void transactionNameFollowsTheDocumentedFormat() {
    TransactionContext<Void> context = TestContexts.transaction("coord.1", "sinkA", "ab12cd34", 7, 3, 12, null);
    assertEquals("coord.1-sinkA-ab12cd34-7-12", context.transactionName());
    assertEquals("coord.1-sinkA-ab12cd34-", context.transactionNamePrefix());
    assertTrue(context.isOwnTransactionName("coord.1-sinkA-ab12cd34-1-0"));
  }

  @Test
  void theEpochOfAnOwnNameIsReadBack() {
    String prefix = TransactionNames.prefix("c", "p", "ab12cd34");
    assertEquals(7, TransactionNames.epoch(prefix, TransactionNames.name(prefix, 7, 12)));
    assertEquals(0, TransactionNames.epoch(prefix, TransactionNames.name(prefix, 0, 0)));
    assertEquals(Long.MAX_VALUE, TransactionNames.epoch(prefix, TransactionNames.name(prefix, Long.MAX_VALUE, 1)));
    assertEquals(-1, TransactionNames.epoch(prefix, prefix + "99999999999999999999-1"), "more than a long");
    assertEquals(-1, TransactionNames.epoch(prefix, TransactionNames.prefix("c", "q", "ab12cd34") + "7-12"));
    assertEquals(-1, TransactionNames.epoch(prefix, prefix + "owner"));
    assertEquals(-1, TransactionNames.epoch(prefix, null));
  }

  @Test
  void namesThatNeedEscapingGetAHashSoDistinctNamesStayDistinct() {
    String a = TransactionNames.prefix("a", "b-c", "l") + "1-0";
    String b = TransactionNames.prefix("a-b", "c", "l") + "1-0";
    String c = TransactionNames.prefix("a_b", "c", "l") + "1-0";
    assertEquals(3, Set.of(a, b, c).size(), a + " " + b + " " + c);
    assertTrue(a.matches("a-b_c_[0-9a-f]{8}-l-1-0"), a);
    assertTrue(TransactionNames.prefix("my coord/:x", "kafka@out!", "l")
        .matches("my_coord__x_[0-9a-f]{8}-kafka_out__[0-9a-f]{8}-l-"));
  }

  @Test
  void aPlainNameCannotImitateAnEscapedOne() {
    String escaped = TransactionNames.prefix("a-b", "c", "l");
    String imitation = escaped.substring(0, escaped.indexOf('-')); // "a_b_<crc of a-b>", literally
    assertNotEquals(escaped, TransactionNames.prefix(imitation, "c", "l"));
  }

  @Test
  void longPartsAreShortenedWithAHashSoNamesStayBounded() {
    String longId = "x".repeat(255);
    String other = "x".repeat(254) + "y";
    String a = TransactionNames.safe(longId);
    String b = TransactionNames.safe(other);
    assertEquals(TransactionNames.MAX_PART_LENGTH, a.length(), a);
    assertNotEquals(a, b);
    assertTrue(TransactionNames.prefix(longId, longId, "abcdefgh").length() <= 2 * TransactionNames.MAX_PART_LENGTH + 11);
  }

  @Test
  void ownershipNeedsTheExactPrefixIncludingTheLogAndAnEpochSequenceSuffix() {
    TransactionContext<Void> mine = TestContexts.transaction("c", "p", "log1", 1, 1, 0, null);
    TransactionContext<Void> other = TestContexts.transaction("c-p", "q", "log1", 1, 1, 0, null);
    TransactionContext<Void> otherLog = TestContexts.transaction("c", "p", "log2", 1, 1, 0, null);
    assertTrue(mine.isOwnTransactionName(mine.transactionName()));
    assertFalse(mine.isOwnTransactionName(other.transactionName()));
    assertFalse(mine.isOwnTransactionName(otherLog.transactionName()),
        "a coordinator with the same id on another log is not this one");
    assertEquals(mine.transactionName().replace("log1", "log2"), otherLog.transactionName());
    assertFalse(mine.isOwnTransactionName("c-p-log1-x-1"));
    assertFalse(mine.isOwnTransactionName("c-p-log1-1-2-3"));
    assertFalse(mine.isOwnTransactionName(null));
  }

  @Test
  void recoveryContextCopiesItsHandles() {
    List<String> handled = new ArrayList<>(List.of("a"));
    RecoveryContext<String, Void> context = TestContexts.recovery("c", "p", 1, handled, 0);
    handled.add("b");
    assertEquals(List.of("a"), context.handledTransactions());
  }

  @Test
  void emptyPartsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> TransactionNames.prefix("", "p", "l"));
  }
}
