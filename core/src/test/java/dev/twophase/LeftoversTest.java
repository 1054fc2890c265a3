package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.testing.TestContexts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** {@link RecoveryContext#leftovers}: which names the resource holds are a participant's leftovers. */
class LeftoversTest {

  private static final String LONG_ID = "c".repeat(70);

  private static String name(String coordinator, String participant, String log, long epoch, long sequence) {
    return TestContexts.transactionName(coordinator, participant, log, epoch, sequence);
  }

  private static String shortened(String coordinator, long epoch, long sequence) {
    String prefix = TransactionNames.prefix(coordinator, "p", TestContexts.LOG_ID);
    return TransactionNames.shorten(prefix, TransactionNames.name(prefix, epoch, sequence), 64);
  }

  @Test
  void ownNamesOfAnyIncarnationThatRecoveryDidNotHandleAreLeftovers() {
    String handled = name("c", "p", TestContexts.LOG_ID, 2, 5);
    Predicate<String> leftover = TestContexts.<String, Void>recovery("c", "p", 3, List.of(handled), 2)
        .leftovers(n -> n);
    assertTrue(leftover.test(name("c", "p", TestContexts.LOG_ID, 2, 6)));
    assertTrue(leftover.test(name("c", "p", TestContexts.LOG_ID, 1, 0)), "an earlier incarnation's");
    assertFalse(leftover.test(handled));
    assertFalse(leftover.test(name("c", "q", TestContexts.LOG_ID, 2, 6)), "another participant's");
    assertFalse(leftover.test(name("c", "p", "otherlog", 2, 6)), "another log's");
    assertFalse(leftover.test(name("c-p", "x", TestContexts.LOG_ID, 2, 6)), "another coordinator's");
    assertFalse(leftover.test(handled + "-1"), "the suffix must be exact");
    assertFalse(leftover.test(null));
    assertFalse(leftover.test(""));
  }

  @Test
  void onASharedLogANewerOwnersNamesAreNeverLeftovers() {
    Predicate<String> leftover = TestContexts.<String, Void>recovery("c", "p", TestContexts.LOG_ID, 5, true,
        List.of(), null, 0).leftovers(n -> n);
    assertTrue(leftover.test(name("c", "p", TestContexts.LOG_ID, 4, 0)), "a superseded owner's");
    assertTrue(leftover.test(name("c", "p", TestContexts.LOG_ID, 5, 0)), "this owner's, begun before");
    assertFalse(leftover.test(name("c", "p", TestContexts.LOG_ID, 6, 0)), "a newer owner's");
    assertFalse(leftover.test(name("c", "p", TestContexts.LOG_ID, 60, 0)), "a newer owner's");
    assertFalse(leftover.test(shortened(LONG_ID, 6, 0)), "another prefix's, shortened");
    Predicate<String> longLeftover = TestContexts.<String, Void>recovery(LONG_ID, "p", TestContexts.LOG_ID, 5, true,
        List.of(), null, 0).leftovers(n -> n);
    assertTrue(longLeftover.test(shortened(LONG_ID, 5, 1)), "a shortened name of this epoch");
    assertFalse(longLeftover.test(shortened(LONG_ID, 6, 1)), "a shortened name of a newer owner");

    Predicate<String> local = TestContexts.<String, Void>recovery("c", "p", TestContexts.LOG_ID, 5, false,
        List.of(), null, 0).leftovers(n -> n);
    assertTrue(local.test(name("c", "p", TestContexts.LOG_ID, 6, 0)),
        "on a log owned as a whole every incarnation's names are leftovers (a restored copy counts epochs anew)");
  }

  @Test
  void shortenedNamesAreRecognisedAndHandledInEitherForm() {
    String prefix = TransactionNames.prefix(LONG_ID, "p", TestContexts.LOG_ID);
    String full = TransactionNames.name(prefix, 2, 5);
    String shortenedHandled = shortened(LONG_ID, 2, 5);
    for (String handledForm : List.of(full, shortenedHandled)) {
      Predicate<String> leftover = TestContexts.<String, Void>recovery(LONG_ID, "p", 3, List.of(handledForm), 2)
          .leftovers(n -> n);
      assertFalse(leftover.test(shortenedHandled), handledForm);
      assertFalse(leftover.test(full), handledForm);
      assertTrue(leftover.test(shortened(LONG_ID, 2, 6)), handledForm);
      assertTrue(leftover.test(TransactionNames.name(prefix, 2, 6)), handledForm);
      assertFalse(leftover.test(shortened(LONG_ID + "d", 2, 6)), "another coordinator's shortened name");
      String shortPrefix = shortenedHandled.substring(0, TransactionNames.SHORT_PREFIX_LENGTH);
      assertFalse(leftover.test(shortPrefix + "2-6-extra"), "the suffix must be exact");
      assertFalse(leftover.test(shortPrefix + "x"));
    }
  }

  @Test
  void theNameFunctionReadsEachHandleOnceAndMayNameNone() {
    List<String> asked = new ArrayList<>();
    RecoveryContext<String, Void> context = TestContexts.recovery("c", "p", 3,
        Arrays.asList("c-p-testlog0-1-1", "empty"), 1);
    Predicate<String> leftover = context.leftovers(h -> {
      asked.add(h);
      return h.equals("empty") ? null : h;
    });
    assertFalse(leftover.test("c-p-testlog0-1-1"));
    assertTrue(leftover.test("c-p-testlog0-1-2"));
    assertTrue(asked.equals(List.of("c-p-testlog0-1-1", "empty")), asked.toString());
  }

  /** An engine that narrows ownership (the Flink adapter's rule) overrides isOwnTransactionName only. */
  @Test
  void aNarrowerOwnershipTestIsRespected() {
    String prefix = TransactionNames.prefix(LONG_ID, "p", TestContexts.LOG_ID);
    RecoveryContext<String, Void> narrowed = new RecoveryContext<>() {
      @Override public String coordinatorId() { return LONG_ID; }
      @Override public String participantName() { return "p"; }
      @Override public long ownerEpoch() { return 3; }
      @Override public String transactionNamePrefix() { return prefix; }
      @Override public List<String> handledTransactions() { return List.of(); }
      @Override public Optional<Void> userContext() { return Optional.empty(); }
      @Override public long lastCheckpointId() { return 0; }
      @Override public boolean isOwnTransactionName(String name) {
        return TransactionNames.isOwn(prefix, name) && name.endsWith("-9"); // only sequence 9
      }
    };
    Predicate<String> leftover = narrowed.leftovers(n -> n);
    assertTrue(leftover.test(shortened(LONG_ID, 2, 9)));
    assertTrue(leftover.test(TransactionNames.name(prefix, 2, 9)));
    assertFalse(leftover.test(shortened(LONG_ID, 2, 8)));
  }
}
