package dev.twophase.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TransactionalIdSchemeTest {

  private static final String BASE = TransactionalIdScheme.base("shop.orders", "orders-kafka-ab12cd34-");

  @Test
  void anIdCarriesItsEpochAndIndex() {
    assertEquals("shop.orders-orders-kafka-ab12cd34-tid-", BASE);
    assertEquals(BASE + "e42-", TransactionalIdScheme.epochBase(BASE, 42));
    assertEquals(new TransactionalIdScheme.Parsed(42, 3), TransactionalIdScheme.parse(BASE, BASE + "e42-3"));
    assertEquals(new TransactionalIdScheme.Parsed(Long.MAX_VALUE, 0),
        TransactionalIdScheme.parse(BASE, BASE + "e" + Long.MAX_VALUE + "-0"));
    assertEquals(new TransactionalIdScheme.Parsed(TransactionalIdScheme.NO_EPOCH, 5),
        TransactionalIdScheme.parse(BASE, BASE + "5"), "an earlier release's id");
    assertEquals(BASE, TransactionalIdScheme.prefixOf(BASE, TransactionalIdScheme.NO_EPOCH));
    assertEquals(BASE + "e9-", TransactionalIdScheme.prefixOf(BASE, 9));
    assertThrows(IllegalArgumentException.class, () -> TransactionalIdScheme.epochBase(BASE, -2));
  }

  @Test
  void onlyCanonicalIdsOfTheBaseAreRead() {
    for (String id : List.of(BASE + "e42-", BASE + "e-3", BASE + "e042-3", BASE + "e42-03", BASE + "e42-3x",
        BASE + "e42.3", BASE + "x", BASE, BASE + "e9223372036854775808-0", BASE + "e1-2-3",
        "other-" + BASE + "e1-0", BASE.replace("tid-", "tid2-") + "e1-0")) {
      assertNull(TransactionalIdScheme.parse(BASE, id), id);
    }
  }

  /** The broker's pattern and the client's reading agree, on the broker's RE2 syntax too (a subset of Java's here). */
  @Test
  void thePatternMatchesExactlyWhatParseReads() {
    Pattern p = Pattern.compile(TransactionalIdScheme.regexOf(BASE));
    for (String id : List.of(BASE + "e42-3", BASE + "e1-0", BASE + "7")) {
      assertTrue(p.matcher(id).matches(), id);
    }
    for (String id : List.of(BASE + "e42-", BASE + "e-3", BASE + "x", "other-" + BASE + "e1-0",
        BASE.replace(".", "X") + "e1-0", BASE + "e1-2-3")) {
      assertFalse(p.matcher(id).matches(), id);
    }
    assertEquals("^shop\\.orders-orders-kafka-ab12cd34-tid-(e[0-9]+-)?[0-9]+$", TransactionalIdScheme.regexOf(BASE));
  }

  /** Start-up aborts earlier epochs' transactions only: never its own, never a newer owner's. */
  @Test
  void lingeringTransactionsAreOfEarlierEpochsOnly() {
    assertTrue(LingeringTransactions.earlier(BASE, 5, BASE + "e4-0"));
    assertTrue(LingeringTransactions.earlier(BASE, 5, BASE + "e0-9"));
    assertTrue(LingeringTransactions.earlier(BASE, 5, BASE + "3"), "an earlier release's");
    assertFalse(LingeringTransactions.earlier(BASE, 5, BASE + "e5-0"), "its own");
    assertFalse(LingeringTransactions.earlier(BASE, 5, BASE + "e6-0"), "a newer owner's");
    assertFalse(LingeringTransactions.earlier(BASE, 5, "other-" + BASE + "e4-0"));
  }
}
