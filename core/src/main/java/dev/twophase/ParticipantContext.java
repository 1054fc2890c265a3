package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.time.Duration;
import java.util.Optional;

/** Who a participant works for; passed to every life-cycle call that creates resources. */
@PublicEvolving
public interface ParticipantContext {

  /** The coordinator's id, unique within its state log. */
  String coordinatorId();

  /** The participant's name, unique within the coordinator. */
  String participantName();

  /**
   * The owner epoch of this coordinator incarnation. It grows with every start, so resources named
   * with it never collide with those of an earlier incarnation, and a participant whose resource
   * supports fencing can reject a zombie whose epoch is lower.
   */
  long ownerEpoch();

  /**
   * The part every {@link TransactionContext#transactionName()} of this coordinator's participant
   * starts with, in every incarnation: {@code <coordinatorId>-<participantName>-<logId>-}, see
   * {@link TransactionNames#prefix}. The log id is the identity of the coordinator's state log (for
   * an {@link EmbeddedCoordinator}, of the lineage of checkpoints it restores), so that two
   * coordinators with the same id on two different logs never share a name, and neither takes the
   * other's transactions for its own leftovers.
   */
  String transactionNamePrefix();

  /**
   * Whether the coordinator's state log is shared ({@link StateLog#isShared()}): many processes
   * open it and claim coordinators from each other, and this incarnation's claim fenced every
   * earlier owner of the coordinator wherever it runs. The {@link #ownerEpoch()} then orders all
   * owners of the coordinator: one of a lower epoch is superseded (it can no longer decide
   * anything, and its decisions are in what this owner recovered), one of a higher epoch is newer
   * (this incarnation is the superseded one). A participant that keeps a claim of its own on its
   * resource must therefore let a newer epoch take it over, even while the older owner's process
   * still runs (stopped, or cut off, not knowing it lost the coordinator), and must never touch a
   * newer epoch's transactions ({@link #isOwnTransactionName} leaves them out).
   *
   * <p>False for a log owned as a whole by one process ({@link FileStateLog}, an engine's own
   * checkpoints): a copy of such a log (a restored backup started beside the original) hands out
   * epochs of its own, so an epoch says nothing about an owner of another copy.
   */
  default boolean sharedLog() {
    return false;
  }

  /**
   * Whether {@code name} is a transaction name of this coordinator's participant on this log, from
   * any incarnation: {@link #transactionNamePrefix()} followed by {@code <epoch>-<sequence>}; on a
   * {@link #sharedLog() shared log}, only of this incarnation's epoch or an earlier one, since a
   * later epoch's transactions belong to a newer owner. It
   * tests a name as the coordinator made it; on start-up a participant finds its leftovers with
   * {@link RecoveryContext#leftovers}, which applies this test (also to names
   * {@link TransactionNames#shorten shortened} for a resource) without touching those of other
   * coordinators, participants or logs sharing the resource. An engine that may abort only some of
   * a participant's names overrides this in its recovery context.
   */
  default boolean isOwnTransactionName(String name) {
    String prefix = transactionNamePrefix();
    return TransactionNames.isOwn(prefix, name)
        && (!sharedLog() || TransactionNames.epoch(prefix, name) <= ownerEpoch());
  }

  /**
   * The most checkpoints that may be decided and not yet committed at once (see
   * {@link CoordinatorConfig#maxPendingCheckpoints()}), or 0 if unbounded. A participant that keeps
   * a bounded pool of resources per transaction (Kafka transactional ids, say) sizes it from this.
   * With a bound {@code max}, a participant holds at most {@code 2 * max + 2} pre-committed
   * transactions that are not yet retired ({@link RetirementListener}): up to {@code max} decided
   * and waiting for their commit, the one being decided, and up to {@code max + 1} committed whose
   * retirement waits for the next durable state record; plus the transaction being written.
   */
  default int maxPendingCheckpoints() {
    return 0;
  }

  /**
   * The time between the checkpoints the coordinator takes on its own
   * ({@link CoordinatorConfig#checkpointInterval()}), or empty if it has none: checkpoints taken
   * only on demand, by record count, or by an engine that drives an {@link EmbeddedCoordinator}. A
   * participant whose resource expires open transactions (Kafka's {@code transaction.timeout.ms},
   * say) compares its timeout with this at start-up, so that the application gives the interval
   * once.
   */
  default Optional<Duration> checkpointInterval() {
    return Optional.empty();
  }
}
