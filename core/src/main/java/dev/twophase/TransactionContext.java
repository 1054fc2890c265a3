package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Optional;

/**
 * What a participant knows when it begins a transaction.
 *
 * @param <CONTEXT> the participant's user context
 */
@PublicEvolving
public interface TransactionContext<CONTEXT> extends ParticipantContext {

  /** The checkpoint this transaction will be pre-committed in, if all goes well. */
  long checkpointId();

  /**
   * A number that grows with every transaction this incarnation begins, starting at 0. Together
   * with {@link #ownerEpoch()} it is unique for the coordinator across restarts.
   */
  long sequence();

  /**
   * A name unique across the coordinator's restarts and across state logs, made only of
   * {@code [A-Za-z0-9._-]}: {@link #transactionNamePrefix()} followed by
   * {@code <ownerEpoch>-<sequence>}. Derive resource names from it (a file name, a Kafka
   * transactional id, an XA global id, fitted by {@link TransactionNames#shorten} if the resource
   * has a smaller limit) so that {@link RecoveryContext#leftovers} finds leftovers after a crash.
   */
  default String transactionName() {
    return TransactionNames.name(transactionNamePrefix(), ownerEpoch(), sequence());
  }

  /** The participant's context, restored from the log or made by {@code initializeUserContext}. */
  Optional<CONTEXT> userContext();
}
