package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * What a participant learns at the end of start-up recovery.
 *
 * @param <TXN>     the handle type
 * @param <CONTEXT> the user context type
 */
@PublicEvolving
public interface RecoveryContext<TXN, CONTEXT> extends ParticipantContext {

  /**
   * Handles the coordinator committed or aborted during this recovery, in the order it handled
   * them. Anything else of this coordinator that the resource still holds in progress was begun
   * after the last durable record and must be aborted.
   */
  List<TXN> handledTransactions();

  /**
   * The test that decides which transactions the resource still holds are this participant's
   * leftovers, to be aborted at the end of recovery: a name is a leftover if it is one of this
   * participant's names of any incarnation ({@link #isOwnTransactionName}) and not the name of a
   * {@link #handledTransactions() handled} transaction. A participant lists what its resource holds
   * in progress (prepared transactions, in-progress files, ...), aborts each name the returned test
   * accepts, and leaves every other name alone: other coordinators', other participants', other
   * logs', and those a handled transaction still needs.
   *
   * <p>Names in either form count: a name as the coordinator made it
   * ({@link TransactionContext#transactionName()}) and a name {@link TransactionNames#shorten}
   * fitted into a resource's limit are both recognised (the shortened one is
   * {@link TransactionNames#unshorten restored} for this context's {@link #transactionNamePrefix()}
   * before either test), so a participant that stores shortened names needs no test of its own.
   *
   * <p>Contract: {@code nameOf} gives, for a handle of {@link #handledTransactions()}, the name
   * under which the resource holds that transaction, in either form (or null for a handle that
   * names none, which is then skipped); it is called once per handle, here. A transaction the
   * participant itself has begun in this process is its own and not handled, so the test accepts
   * it: a participant that may have begun transactions before this call (an engine may begin one
   * lineage's while it recovers another's) excludes its open ones itself.
   * The default suffices for every context whose {@link #isOwnTransactionName} is right; an engine
   * that narrows ownership (an adapter that may abort only some of a lineage's names) overrides
   * {@link #isOwnTransactionName}, not this.
   *
   * @param nameOf the name of a handled transaction in the resource
   * @return a test that is true for the names to abort; thread-safe, and usable after recovery
   */
  default Predicate<String> leftovers(Function<? super TXN, String> nameOf) {
    UnaryOperator<String> full = TransactionNames.unshortener(transactionNamePrefix());
    Set<String> handled = new HashSet<>();
    for (TXN transaction : handledTransactions()) {
      String name = nameOf.apply(transaction);
      if (name != null) {
        handled.add(full.apply(name));
      }
    }
    return name -> {
      String n = full.apply(name);
      return isOwnTransactionName(n) && !handled.contains(n);
    };
  }

  /** The restored (or freshly initialised) user context. */
  Optional<CONTEXT> userContext();

  /** The last decided checkpoint id in the log, 0 on a first start. */
  long lastCheckpointId();
}
