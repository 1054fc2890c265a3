package dev.twophase.kafka.internal;

import dev.twophase.AbortOutcome;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.KafkaPoints;
import dev.twophase.CommitOutcome;
import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.kafka.KafkaTransaction;
import dev.twophase.kafka.KafkaTransactionUndecidedException;
import java.time.Duration;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits and aborts transactions, with the producer that ran them or from the handle alone, and
 * says what it found, never guessing: where the producer's error is ambiguous the broker's view
 * ({@link BrokerTransactionView}) decides, and where that cannot tell either it throws
 * {@link KafkaTransactionUndecidedException} (the broker is still ending it: retry) or
 * {@link CommitOutcomeUnknownException} (it never will tell).
 *
 * <p>Every producer it opens it closes before returning, on every path. Thread-safe (stateless
 * apart from its collaborators).
 */
@Internal
public final class TransactionFinisher {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionFinisher.class);

  private final String participant;
  private final ProducerSettings settings;
  private final TransactionResumer resumer;
  private final BrokerTransactionView view;
  private final FaultInjector faults;
  private final Duration closeTimeout;

  public TransactionFinisher(String participant, ProducerSettings settings, TransactionResumer resumer,
      BrokerTransactionView view, FaultInjector faults, Duration closeTimeout) {
    this.participant = participant;
    this.settings = settings;
    this.resumer = resumer;
    this.view = view;
    this.faults = faults;
    this.closeTimeout = closeTimeout;
  }

  /** The result of a commit with the live producer: the outcome, and whether the producer is still usable. */
  public record LiveCommit(CommitOutcome outcome, boolean producerUsable) {}

  /**
   * Commits {@code t} with {@code producer}, the producer that ran it in this process. On success
   * the producer is ready for its next transaction. A timeout leaves it as it is (a later call may
   * retry the commit on it) and throws. Any other failure closes the producer and asks the broker.
   *
   * @throws FencedException another producer took the transactional id over (a newer incarnation
   *     of this coordinator, or another application using the same ids)
   * @throws KafkaTransactionUndecidedException the broker cannot tell yet; retry
   * @throws CommitOutcomeUnknownException the broker can no longer tell
   */
  public LiveCommit commitLive(TransactionalProducer producer, KafkaTransaction t) throws Exception {
    boolean usable = false;
    try {
      producer.commit();
      usable = true;
    } catch (TimeoutException e) {
      usable = true; // KafkaProducer allows commitTransaction() again after a timeout
      throw e;
    } catch (KafkaException e) {
      return new LiveCommit(afterFailedCommit(t, e), false);
    } finally {
      if (!usable) {
        producer.close(closeTimeout);
      }
    }
    if (t.started()) {
      faults.reached(KafkaPoints.AFTER_COMMIT);
    }
    return new LiveCommit(CommitOutcome.COMMITTED, true);
  }

  /**
   * Commits {@code t} from its handle alone, in a process that did not run it: asks the broker
   * first (a repeat reports {@code ALREADY_COMMITTED}, an expired transaction {@code LOST}), and
   * commits through a fresh producer resumed with the handle's producer id, epoch and
   * transaction-version flag if the transaction is still open.
   */
  public CommitOutcome commitResumed(KafkaTransaction t) throws Exception {
    if (!t.started()) {
      return CommitOutcome.COMMITTED; // nothing reached the broker: nothing to make visible
    }
    ProducerState state = stateOf(t);
    BrokerFinding before = view.find(t.transactionalId(), state);
    switch (before.outcome()) {
      case COMMITTED:
        return CommitOutcome.ALREADY_COMMITTED;
      case ABORTED:
        return lost(t, before);
      case UNKNOWN:
        throw undecided(t, before, null);
      case IN_PROGRESS:
      default:
        break;
    }
    TransactionalProducer fresh = TransactionalProducer.open(settings, t.transactionalId(), resumer);
    try {
      fresh.resume(state);
      fresh.commit();
    } catch (KafkaException e) {
      return afterFailedCommit(t, e);
    } finally {
      fresh.close(closeTimeout);
    }
    faults.reached(KafkaPoints.AFTER_RECOVERY_COMMIT);
    return CommitOutcome.COMMITTED;
  }

  /**
   * Aborts {@code t} from its handle alone: if the broker shows it open, a new producer of its id
   * registers ({@code initTransactions()}), which aborts it and fences any producer left of it.
   */
  public AbortOutcome abortResumed(KafkaTransaction t) throws Exception {
    BrokerFinding f = view.find(t.transactionalId(), stateOf(t));
    switch (f.outcome()) {
      case COMMITTED:
        return AbortOutcome.COMMITTED;
      case ABORTED:
        return AbortOutcome.NOT_FOUND;
      case IN_PROGRESS:
        if (!f.atTransactionEpoch()) {
          return AbortOutcome.NOT_FOUND; // TV1: the broker bumped the epoch and is expiring it
        }
        fence(t.transactionalId());
        return AbortOutcome.ABORTED;
      case UNKNOWN:
      default:
        // The id shows no transaction of this producer id and epoch: it never reached the broker
        // (a handle logged before its first send), or the id moved on after it ended.
        return AbortOutcome.NOT_FOUND;
    }
  }

  /**
   * Registers a new producer for {@code transactionalId} and closes it: aborts the transaction
   * open on the id, if any, and fences every older producer of it.
   */
  public void fence(String transactionalId) {
    TransactionalProducer p = TransactionalProducer.open(settings, transactionalId, resumer);
    try {
      p.init();
    } finally {
      p.close(closeTimeout);
    }
  }

  private CommitOutcome afterFailedCommit(KafkaTransaction t, KafkaException e) throws Exception {
    BrokerFinding after;
    try {
      after = view.find(t.transactionalId(), stateOf(t));
    } catch (Exception asking) {
      asking.addSuppressed(e);
      throw asking;
    }
    switch (after.outcome()) {
      case COMMITTED:
        LOG.info("{}: the commit of {} failed ({}), but the broker shows it committed: {}", participant, t, e, after.evidence());
        return CommitOutcome.COMMITTED;
      case ABORTED:
        return lost(t, after);
      case UNKNOWN:
        if (e instanceof ProducerFencedException) {
          throw new FencedException(participant + ": the transactional id " + t.transactionalId() + " of " + t
              + " was taken over by another producer (" + after.evidence() + "): a newer incarnation of this "
              + "coordinator, or another application using the same transactional ids. Stop this one; if no other "
              + "incarnation runs, give the other application another transactional id prefix", e);
        }
        throw undecided(t, after, e);
      case IN_PROGRESS:
      default:
        throw undecided(t, after, e);
    }
  }

  private CommitOutcome lost(KafkaTransaction t, BrokerFinding f) {
    LOG.error("{}: {} can no longer be committed, the broker aborted it ({}). Its records are lost unless the "
        + "application replays them; a transaction must be committed within transaction.timeout.ms={} of its "
        + "first record, including a recovery's downtime", participant, t, f.evidence(), settings.transactionTimeout().toMillis());
    return CommitOutcome.LOST;
  }

  /**
   * What to throw when the broker's view does not settle {@code t}: retriable while the broker is
   * still ending a transaction of the id at the handle's epoch; otherwise the answer can never come
   * (the id moved on to a later epoch or producer, or the broker forgot it), and retrying would
   * only repeat the question forever.
   */
  private RuntimeException undecided(KafkaTransaction t, BrokerFinding f, Exception cause) {
    String what = participant + ": cannot tell whether " + t + " committed"
        + (cause == null ? "" : " after its commit failed with " + cause) + "; " + f.evidence() + ". ";
    if (f.outcome() == BrokerFinding.Outcome.IN_PROGRESS) {
      return new KafkaTransactionUndecidedException(what + "The broker is still ending it: retry.", cause);
    }
    return new CommitOutcomeUnknownException(what + "The id moved on or the broker forgot it "
        + "(transactional.id.expiration.ms), so asking again cannot tell either. Check that no other application "
        + "uses this participant's transactional id prefix, then look for the transaction's records in its topics with a "
        + "read_committed consumer to decide whether it committed", cause);
  }

  private static ProducerState stateOf(KafkaTransaction t) {
    return new ProducerState(t.producerId(), t.epoch(), t.transactionV2(), t.started());
  }
}
