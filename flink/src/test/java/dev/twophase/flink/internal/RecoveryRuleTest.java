package dev.twophase.flink.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.TransactionNames;
import org.junit.jupiter.api.Test;

/** Which names of a lineage a restored writer aborts, and which it leaves to Flink's committer. */
class RecoveryRuleTest {

  private static final String PREFIX = TransactionNames.prefix("orders", "files", "c0s1");
  /** The state: incarnation 100 had pre-committed sequences 0..4; 5 was open. We are epoch 300. */
  private static final RecoveryRule RULE = new RecoveryRule(PREFIX, 100, 5, 300);

  @Test
  void preCommittedTransactionsOfTheStateAreLeftToTheCommitter() {
    assertFalse(RULE.abortable(PREFIX + "100-0"));
    assertFalse(RULE.abortable(PREFIX + "100-4"));
  }

  @Test
  void theOpenTransactionAndLaterOnesOfTheStateAreAborted() {
    assertTrue(RULE.abortable(PREFIX + "100-5"));
    assertTrue(RULE.abortable(PREFIX + "100-6"));
  }

  @Test
  void laterAttemptsAreAbortedEarlierIncarnationsAndOurOwnAreNot() {
    assertTrue(RULE.abortable(PREFIX + "200-0"), "an attempt that restored this state and failed");
    assertFalse(RULE.abortable(PREFIX + "99-7"), "cleaned by incarnation 100; may be pending");
    assertFalse(RULE.abortable(PREFIX + "300-0"), "our own");
  }

  @Test
  void otherLineagesSinksParticipantsAndForeignNamesAreNeverOwn() {
    assertFalse(RULE.abortable(TransactionNames.prefix("orders", "files", "c0s2") + "200-0"));
    assertFalse(RULE.abortable(TransactionNames.prefix("orders", "db", "c0s1") + "200-0"));
    assertFalse(RULE.abortable(TransactionNames.prefix("other", "files", "c0s1") + "200-0"));
    assertFalse(RULE.abortable(PREFIX + "200"));
    assertFalse(RULE.abortable(PREFIX + "99999999999999999999-0"));
    assertFalse(RULE.abortable(null));
  }

  @Test
  void aFreshLineageAbortsEveryEpochButOurs() {
    RecoveryRule fresh = new RecoveryRule(PREFIX, 0, 0, 300);
    assertTrue(fresh.abortable(PREFIX + "1-0"));
    assertTrue(fresh.abortable(PREFIX + "299-12"));
    assertFalse(fresh.abortable(PREFIX + "300-0"));
  }
}
