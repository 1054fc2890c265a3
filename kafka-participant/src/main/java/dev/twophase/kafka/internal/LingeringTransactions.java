package dev.twophase.kafka.internal;

import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Finds the transactions a participant's earlier incarnations left open on the broker: the open
 * transactions of its ids ({@link TransactionalIdScheme}) of every epoch below its own. Open
 * transactions hold every {@code read_committed} consumer of their partitions at the last stable
 * offset until the broker expires them, so start-up aborts them (after the decided ones were
 * committed). Ids of its own epoch and of later ones are never reported: nothing earlier used its
 * own, and a later epoch's belong to a newer owner, which an earlier one must never disturb.
 *
 * <p>One admin request, whatever the number of restarts, on brokers 3.0 and later:
 * {@code listTransactions} filtered on the {@code Ongoing} state and on the ids' pattern (brokers
 * 4.1 and later; earlier ones refuse the pattern, and the listing is then of every open
 * transaction of the cluster, matched here). On a broker that cannot list transactions at all, a
 * {@code describeTransactions} of the ids the caller can name ({@code knownIds}: the pools of the
 * epochs its recovered handles show), which misses the ids of epochs no handle shows.
 */
@Internal
public final class LingeringTransactions {

  /** How the broker is asked; the later ones only where the broker refuses the earlier. */
  enum Method { PATTERN, LISTING, DESCRIBE }

  private final Admin admin;
  private final Duration timeout;
  private final Method first;

  public LingeringTransactions(Admin admin, Duration timeout) {
    this(admin, timeout, Method.PATTERN);
  }

  /** Test hook: starts with {@code first}, as on a broker that refuses the methods before it. */
  LingeringTransactions(Admin admin, Duration timeout, Method first) {
    this.admin = admin;
    this.timeout = timeout;
    this.first = first;
  }

  /**
   * The ids of {@code base} with an open transaction whose epoch is below {@code ownEpoch} (or
   * that carry no epoch: an earlier release's), sorted.
   *
   * @param knownIds the ids to describe if the broker cannot list transactions
   */
  public Set<String> open(String base, long ownEpoch, Collection<String> knownIds) throws Exception {
    if (first == Method.PATTERN) {
      try {
        return listed(base, ownEpoch, new ListTransactionsOptions()
            .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_EPOCH_FENCE))
            .filterOnTransactionalIdPattern(TransactionalIdScheme.regexOf(base)));
      } catch (UnsupportedVersionException e) {
        // before 4.1: list without the pattern
      }
    }
    if (first != Method.DESCRIBE) {
      try {
        return listed(base, ownEpoch, new ListTransactionsOptions()
            .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_EPOCH_FENCE)));
      } catch (UnsupportedVersionException e) {
        // before 3.0: describe what can be named
      }
    }
    return described(base, ownEpoch, knownIds);
  }

  private Set<String> listed(String base, long ownEpoch, ListTransactionsOptions options) throws Exception {
    Collection<TransactionListing> listings;
    try {
      listings = admin.listTransactions(options).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    Set<String> open = new TreeSet<>();
    for (TransactionListing l : listings) {
      if (earlier(base, ownEpoch, l.transactionalId())) {
        open.add(l.transactionalId());
      }
    }
    return open;
  }

  private Set<String> described(String base, long ownEpoch, Collection<String> knownIds) throws Exception {
    Set<String> open = new TreeSet<>();
    List<String> ids = new ArrayList<>(new TreeSet<>(knownIds));
    ids.removeIf(id -> !earlier(base, ownEpoch, id));
    if (ids.isEmpty()) {
      return open;
    }
    var described = admin.describeTransactions(ids);
    for (String id : ids) {
      try {
        TransactionDescription d = described.description(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (d.state() == TransactionState.ONGOING || d.state() == TransactionState.PREPARE_EPOCH_FENCE) {
          open.add(id);
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }
    }
    return open;
  }

  /** Whether {@code id} is an id of {@code base} of an epoch below {@code ownEpoch}, or of none. */
  static boolean earlier(String base, long ownEpoch, String id) {
    TransactionalIdScheme.Parsed p = TransactionalIdScheme.parse(base, id);
    return p != null && p.epoch() < ownEpoch;
  }
}
