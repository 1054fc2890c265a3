package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.List;
import java.util.Optional;

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

  /** The restored (or freshly initialised) user context. */
  Optional<CONTEXT> userContext();

  /** The last decided checkpoint id in the log, 0 on a first start. */
  long lastCheckpointId();
}
