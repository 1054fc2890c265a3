package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;

/**
 * Settles what the producer's errors leave ambiguous. A resumed commit that fails with
 * {@code ProducerFencedException}, {@code InvalidProducerEpochException} or
 * {@code InvalidTxnStateException} may mean "committed before" or "aborted by the broker's
 * timeout"; {@code Admin.describeTransactions} shows the broker's view of the id's latest
 * transaction, which {@link #classify} maps to an outcome for the transaction of a given producer
 * id and epoch.
 *
 * <p>The rule, read off brokers at transaction version 1 and 2
 * ({@code BrokerTransactionViewTransactionVersionIT}), for the same producer id; "the end epoch" is
 * the transaction's epoch at TV1 and the next one at TV2 (which bumps the epoch when it prepares a
 * transaction's end):
 * <ul>
 *   <li>{@code PrepareCommit} or {@code CompleteCommit} at the end epoch:
 *       {@link BrokerFinding.Outcome#COMMITTED} (the decision is in the broker's transaction log;
 *       {@code commitTransaction()} returns while the markers are still being written);
 *   <li>{@code PrepareAbort} or {@code CompleteAbort} at the end epoch or the next (an abort by its
 *       producer keeps the epoch at TV1, an expiry by the broker bumps it):
 *       {@link BrokerFinding.Outcome#ABORTED};
 *   <li>{@code Ongoing} or {@code PrepareEpochFence} at the epoch, or at TV1 the next (the broker
 *       bumps the epoch of an expiring transaction before it aborts it):
 *       {@link BrokerFinding.Outcome#IN_PROGRESS};
 *   <li>anything else ({@code Empty} after a new producer registered, a later transaction, another
 *       producer id): {@link BrokerFinding.Outcome#UNKNOWN}.
 * </ul>
 * This is exact because the participant's id pool never gives an id to a new transaction while a
 * handle of an earlier one on that id may still be committed.
 *
 * <p>Thread-safe; the admin client is the caller's.
 */
@Internal
public final class BrokerTransactionView {

  private final Admin admin;
  private final Duration timeout;

  public BrokerTransactionView(Admin admin, Duration timeout) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Asks the broker about {@code transactionalId} and classifies its answer for the transaction
   * {@code state} describes.
   *
   * @throws Exception if the broker cannot be asked (unreachable, timed out, not authorized): the
   *     caller cannot decide and must retry later
   */
  public BrokerFinding find(String transactionalId, ProducerState state) throws Exception {
    TransactionDescription d;
    try {
      d = admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TransactionalIdNotFoundException) {
        return new BrokerFinding(BrokerFinding.Outcome.UNKNOWN, false, "the broker does not know the transactional id "
            + transactionalId + " (never used, or expired after transactional.id.expiration.ms)");
      }
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      throw new TimeoutException("describeTransactions(" + transactionalId + ") did not answer within " + timeout);
    }
    return classify(d, state);
  }

  /** The rule of this class, on a description the broker gave. */
  public static BrokerFinding classify(TransactionDescription d, ProducerState state) {
    String evidence = "broker: " + d.state() + ", producerId=" + d.producerId() + ", epoch=" + d.producerEpoch()
        + "; transaction: " + state;
    if (d.producerId() != state.producerId()) {
      return new BrokerFinding(BrokerFinding.Outcome.UNKNOWN, false, evidence);
    }
    int delta = d.producerEpoch() - state.epoch();
    // The epoch a transaction ends at: TV2 bumps it when it prepares the end, TV1 keeps it.
    int end = state.transactionV2() ? 1 : 0;
    BrokerFinding.Outcome outcome = switch (d.state()) {
      case PREPARE_COMMIT, COMPLETE_COMMIT -> delta == end
          ? BrokerFinding.Outcome.COMMITTED : BrokerFinding.Outcome.UNKNOWN;
      case PREPARE_ABORT, COMPLETE_ABORT -> delta == end || delta == 1
          ? BrokerFinding.Outcome.ABORTED : BrokerFinding.Outcome.UNKNOWN;
      // TV1 expires a transaction by bumping the epoch of the open transaction, then aborting it.
      case ONGOING, PREPARE_EPOCH_FENCE -> delta == 0 || (delta == 1 && !state.transactionV2())
          ? BrokerFinding.Outcome.IN_PROGRESS : BrokerFinding.Outcome.UNKNOWN;
      default -> BrokerFinding.Outcome.UNKNOWN;
    };
    return new BrokerFinding(outcome, delta == 0, evidence);
  }
}
