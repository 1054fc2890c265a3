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
 * transactions of its pool's ids. Open transactions hold every {@code read_committed} consumer of
 * their partitions at the last stable offset until the broker expires them, so start-up aborts
 * them (after the decided ones were committed).
 *
 * <p>One admin request, whatever the number of restarts: {@code listTransactions} filtered on the
 * pool's id pattern and the {@code Ongoing} state (brokers 4.1 and later), which also finds ids of
 * a larger pool an earlier incarnation used; on a broker without the pattern filter,
 * {@code describeTransactions} of the current pool's ids.
 */
@Internal
public final class LingeringTransactions {

  private final Admin admin;
  private final Duration timeout;

  public LingeringTransactions(Admin admin, Duration timeout) {
    this.admin = admin;
    this.timeout = timeout;
  }

  /** The ids starting with {@code base} followed by digits that have an open transaction, sorted. */
  public Set<String> open(String base, Collection<String> poolIds) throws Exception {
    Set<String> open = new TreeSet<>();
    try {
      Collection<TransactionListing> listings = admin.listTransactions(new ListTransactionsOptions()
              .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_EPOCH_FENCE))
              .filterOnTransactionalIdPattern(regexOf(base)))
          .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      for (TransactionListing l : listings) {
        if (l.transactionalId().startsWith(base) && isIndex(l.transactionalId().substring(base.length()))) {
          open.add(l.transactionalId());
        }
      }
      return open;
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof UnsupportedVersionException)) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }
    List<String> ids = new ArrayList<>(poolIds);
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

  /** A regular expression (RE2 syntax, the broker's) matching {@code base} followed by digits. */
  static String regexOf(String base) {
    StringBuilder b = new StringBuilder("^");
    for (int i = 0; i < base.length(); i++) {
      char c = base.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
        b.append(c);
      } else {
        b.append('\\').append(c);
      }
    }
    return b.append("[0-9]+$").toString();
  }

  private static boolean isIndex(String s) {
    return !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}
