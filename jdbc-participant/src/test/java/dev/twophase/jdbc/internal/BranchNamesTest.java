package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.RecoveryContext;
import dev.twophase.TransactionNames;
import dev.twophase.jdbc.JdbcTransaction;
import dev.twophase.testing.TestContexts;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The database's names: core's shortening rule at the database's limit, and its SQL safety. */
class BranchNamesTest {

  private static final int XA_GTRID = 64;

  @Test
  void aNameThatFitsIsUsedAsItIs() {
    String prefix = TransactionNames.prefix("orders", "db", TestContexts.LOG_ID);
    String n = TransactionNames.name(prefix, 3, 17);
    assertEquals(n, BranchNames.of(prefix, n, XA_GTRID));
  }

  /** Prepared transactions an earlier release left in the database keep their names. */
  @Test
  void aLongNameIsShortenedAsEarlierReleasesDid() {
    String prefix = TransactionNames.prefix("c".repeat(40), "sink", "log0");
    String longest = TransactionNames.name(prefix, Long.MAX_VALUE, Long.MAX_VALUE);
    assertEquals("~xfz33gdougnt2fddmvar~9223372036854775807-9223372036854775807",
        BranchNames.of(prefix, longest, XA_GTRID));
  }

  /** What finishRecoveringContext rolls back: the context's leftovers, in the database's names. */
  @Test
  void theContextTakesTheDatabasesNamesForItsOwnAndNoOneElses() {
    String id = "app" + "y".repeat(70);
    String prefix = TransactionNames.prefix(id, "db", TestContexts.LOG_ID);
    JdbcTransaction handled = JdbcTransaction.begun(
        BranchNames.of(prefix, TransactionNames.name(prefix, 1, 1), XA_GTRID));
    RecoveryContext<JdbcTransaction, Void> context = TestContexts.recovery(id, "db", 2, List.of(handled), 1);
    Predicate<String> leftover = context.leftovers(JdbcTransaction::name);
    assertTrue(handled.name().startsWith("~"), handled.name());
    assertFalse(leftover.test(handled.name()));
    assertTrue(leftover.test(BranchNames.of(prefix, TransactionNames.name(prefix, 1, 2), XA_GTRID)));
    for (String[] other : new String[][] {{id + "2", "db"}, {id, "db2"}}) {
      String theirPrefix = TransactionNames.prefix(other[0], other[1], TestContexts.LOG_ID);
      String theirs = TransactionNames.name(theirPrefix, 1, 2);
      assertFalse(leftover.test(theirs), theirs);
      assertFalse(leftover.test(BranchNames.of(theirPrefix, theirs, XA_GTRID)), theirs);
    }
  }

  @Test
  void badInputIsRefusedWithTheReason() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BranchNames.of("p-", "q-1-1", XA_GTRID));
    assertTrue(e.getMessage().contains("does not start with its prefix"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> BranchNames.of("p-", "p-1'; DROP", XA_GTRID));
    assertTrue(e.getMessage().contains("characters"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> BranchNames.of("p".repeat(80) + "-", "p".repeat(80) + "-" + "1".repeat(60), XA_GTRID));
    assertTrue(e.getMessage().contains("even when shortened"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BranchNames.requireSafe("a'b"));
    BranchNames.requireSafe("~abc~1-2");
  }

  @Test
  void theOwnerColumnHoldsThePrefixOrItsShortForm() {
    assertEquals("app-db-", BranchNames.owner("app-db-", 200));
    String longPrefix = "a".repeat(250) + "-db-";
    String shortForm = BranchNames.owner(longPrefix, 200);
    assertTrue(shortForm.matches("~[a-z2-7]{20}~"), shortForm);
    assertEquals(BranchNames.of(longPrefix, longPrefix + "1-1", 64), shortForm + "1-1");
  }
}
