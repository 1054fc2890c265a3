package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one shortening rule, {@link TransactionNames#shorten}, and its inverse. */
class ShortenedNamesTest {

  private static final String MAX = "9223372036854775807-9223372036854775807";

  /** A prefix whose three parts are each escaped and cut to {@link TransactionNames#MAX_PART_LENGTH}. */
  private static final String LONGEST = TransactionNames.prefix("x".repeat(100), "participant-with-dash", "y".repeat(70));

  @Test
  void aNameThatFitsIsUsedAsItIs() {
    String plain = TransactionNames.prefix("c".repeat(40), "sink", "log0");
    String escaped = TransactionNames.prefix("orders/eu-west", "db", "0123456789abcdef0123456789abcdef");
    for (String prefix : new String[] {plain, escaped, LONGEST}) {
      String name = TransactionNames.name(prefix, 3, 17);
      assertEquals(name, TransactionNames.shorten(prefix, name, name.length()));
      assertEquals(name, TransactionNames.shorten(prefix, name, 255));
      assertEquals(name, TransactionNames.unshorten(prefix, name));
    }
  }

  /**
   * The names the JDBC participant wrote before the rule moved to core (its {@code BranchNames}),
   * byte for byte: prepared transactions and marker rows of an earlier release stay recognisable.
   */
  @Test
  void theRuleGivesTheNamesEarlierReleasesWrote() {
    String plain = TransactionNames.prefix("c".repeat(40), "sink", "log0");
    String escaped = TransactionNames.prefix("orders/eu-west", "db", "0123456789abcdef0123456789abcdef");
    assertEquals("orders_eu_west_90f726ee-db-0123456789abcdef0123456789abcdef-", escaped);
    assertEquals(plain + "3-17", TransactionNames.shorten(plain, plain + "3-17", 64));
    assertEquals("~xfz33gdougnt2fddmvar~" + MAX, TransactionNames.shorten(plain, plain + MAX, 64));
    assertEquals("~4hlsxzrs4ce3hfj76i3g~" + MAX, TransactionNames.shorten(escaped, escaped + MAX, 64));
    assertEquals("~etpn4iul2qphscntwqnp~3-17", TransactionNames.shorten(LONGEST, LONGEST + "3-17", 64));
    assertEquals(LONGEST + "3-17", TransactionNames.shorten(LONGEST, LONGEST + "3-17", 200));
    assertEquals("~etpn4iul2qphscntwqnp~", TransactionNames.shorten(LONGEST, LONGEST, 40), "the owner column's form");
  }

  @Test
  void everyNameFitsAnXaGtridWhenShortened() {
    String shortened = TransactionNames.shorten(LONGEST, LONGEST + MAX, 64);
    assertEquals(TransactionNames.SHORT_PREFIX_LENGTH + MAX.length(), shortened.length());
    assertTrue(shortened.length() <= 64, shortened);
    assertTrue(shortened.matches("~[a-z2-7]{20}~" + MAX), shortened);
    assertEquals(LONGEST + MAX, TransactionNames.unshorten(LONGEST, shortened));
    assertEquals(shortened, TransactionNames.shorten(LONGEST, LONGEST + MAX, 64), "deterministic");
  }

  @Test
  void distinctNamesStayDistinct() {
    Set<String> shortened = new HashSet<>();
    Set<String> prefixes = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      String prefix = TransactionNames.prefix("coordinator-" + i + "x".repeat(60), "p", "l");
      prefixes.add(prefix);
      shortened.add(TransactionNames.shorten(prefix, prefix + "1-1", 64));
      shortened.add(TransactionNames.shorten(prefix, prefix + "1-11", 64));
      shortened.add(TransactionNames.shorten(prefix, prefix + "11-1", 64));
    }
    assertEquals(200, prefixes.size());
    assertEquals(600, shortened.size(), "no two (prefix, suffix) pairs share a shortened name");
  }

  @Test
  void anEscapedPrefixAndItsPlainImitationShortenApart() {
    String escaped = TransactionNames.prefix("a-b" + "z".repeat(60), "c", "l");
    String imitation = TransactionNames.prefix(escaped.substring(0, escaped.indexOf('-')), "c", "l");
    assertNotEquals(escaped, imitation);
    String a = TransactionNames.shorten(escaped, escaped + "1-2", 40);
    String b = TransactionNames.shorten(imitation, imitation + "1-2", 40);
    assertNotEquals(a, b);
    assertEquals(escaped + "1-2", TransactionNames.unshorten(escaped, a));
    assertEquals(b, TransactionNames.unshorten(escaped, b), "another prefix's shortened name stays as it is");
  }

  @Test
  void aShortenedNameIsNeverANameUsedAsItIs() {
    String prefix = TransactionNames.prefix("c".repeat(70), "p", "l");
    String shortened = TransactionNames.shorten(prefix, prefix + "1-2", 64);
    assertEquals('~', shortened.charAt(0));
    String fromTildes = TransactionNames.prefix("~a~", "p~", "~");
    assertFalse(fromTildes.contains("~"), "a coordinator's name never holds ~: " + fromTildes);
  }

  @Test
  void unshortenLeavesOtherNamesAlone() {
    assertNull(TransactionNames.unshorten("p-", null));
    assertEquals("", TransactionNames.unshorten("p-", ""));
    assertEquals("~x~1-1", TransactionNames.unshorten("p-", "~x~1-1"));
    assertEquals("q-1-1", TransactionNames.unshorten("p-", "q-1-1"));
  }

  @Test
  void namesTheRuleCannotShortenAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TransactionNames.shorten("p-", "q-1-1", 64));
    assertTrue(e.getMessage().contains("does not start with its prefix p-"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TransactionNames.shorten("p-", "p-1'; DROP", 64));
    assertTrue(e.getMessage().contains("[A-Za-z0-9._-]"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> TransactionNames.shorten("p".repeat(80) + "-", "p".repeat(80) + "-" + "1".repeat(60), 64));
    assertTrue(e.getMessage().contains("even when shortened"), e.getMessage());
    assertEquals("p-1-1", TransactionNames.shorten("p-", "p-1-1", 5), "exactly at the limit");
  }
}
