package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.ParticipantContext;
import dev.twophase.testing.TestContexts;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class BranchNamesTest {

  /** A context as the coordinator makes them, for its own-name test. */
  private static ParticipantContext context(String coordinatorId, String participant) {
    return TestContexts.participant(coordinatorId, participant, 1);
  }

  private static String name(ParticipantContext c, long epoch, long sequence) {
    return c.transactionNamePrefix() + epoch + "-" + sequence;
  }

  @Test
  void aNameThatFitsIsUsedAsItIs() {
    ParticipantContext c = context("orders", "db");
    String n = name(c, 3, 17);
    assertEquals(n, BranchNames.of(c.transactionNamePrefix(), n, 64));
    assertTrue(BranchNames.isOwn(n, c.transactionNamePrefix(), c::isOwnTransactionName));
  }

  @Test
  void aLongNameIsShortenedWithinTheLimitAndStaysOwnAndDistinct() {
    ParticipantContext c = context("a-very-long-coordinator-id-" + "x".repeat(60), "database");
    String prefix = c.transactionNamePrefix();
    String longest = name(c, Long.MAX_VALUE, Long.MAX_VALUE);
    String shortened = BranchNames.of(prefix, longest, 64);
    assertTrue(shortened.length() <= 64, shortened + " has " + shortened.length());
    assertTrue(shortened.startsWith("~"), shortened);
    assertTrue(BranchNames.isOwn(shortened, prefix, c::isOwnTransactionName));
    assertNotEquals(BranchNames.of(prefix, name(c, 1, 2), 64), BranchNames.of(prefix, name(c, 1, 3), 64));
    assertNotEquals(BranchNames.of(prefix, name(c, 1, 23), 64), BranchNames.of(prefix, name(c, 12, 3), 64));
    assertEquals(shortened, BranchNames.of(prefix, longest, 64), "deterministic");
  }

  @Test
  void othersNamesAreNeverOwn() {
    ParticipantContext mine = context("app" + "y".repeat(70), "db");
    ParticipantContext longerId = context("app" + "y".repeat(70) + "2", "db");
    ParticipantContext sibling = context("app" + "y".repeat(70), "db2");
    String p = mine.transactionNamePrefix();
    Predicate<String> own = mine::isOwnTransactionName;
    for (ParticipantContext other : new ParticipantContext[] {longerId, sibling}) {
      String theirs = name(other, 1, 1);
      assertFalse(BranchNames.isOwn(theirs, p, own), theirs);
      assertFalse(BranchNames.isOwn(BranchNames.of(other.transactionNamePrefix(), theirs, 64), p, own));
    }
    String shortPrefix = BranchNames.shortPrefix(p);
    assertFalse(BranchNames.isOwn(shortPrefix + "1-1-extra", p, own), "the suffix must be exact");
    assertFalse(BranchNames.isOwn(shortPrefix + "x", p, own));
    assertFalse(BranchNames.isOwn("", p, own));
    assertFalse(BranchNames.isOwn(null, p, own));
    assertTrue(BranchNames.isOwn(shortPrefix + "7-8", p, own));
  }

  @Test
  void badInputIsRefusedWithTheReason() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BranchNames.of("p-", "q-1-1", 64));
    assertTrue(e.getMessage().contains("does not start with its prefix"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> BranchNames.of("p-", "p-1'; DROP", 64));
    assertTrue(e.getMessage().contains("characters"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BranchNames.of("p".repeat(80) + "-", "p".repeat(80) + "-" + "1".repeat(60), 64));
    assertTrue(e.getMessage().contains("even when shortened"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BranchNames.requireSafe("a'b"));
  }

  @Test
  void theOwnerColumnHoldsThePrefixOrItsShortForm() {
    assertEquals("app-db-", BranchNames.owner("app-db-", 200));
    String longPrefix = "a".repeat(250) + "-db-";
    assertEquals(BranchNames.shortPrefix(longPrefix), BranchNames.owner(longPrefix, 200));
  }
}
