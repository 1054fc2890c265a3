package dev.twophase.jdbc.internal.statelog;

import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.JdbcStateLogStats;
import java.util.concurrent.atomic.LongAdder;

/** The counters behind {@link JdbcStateLogStats}; updated by the writer and the claims. */
@Internal
final class Counters {

  final LongAdder stateAppends = new LongAdder();
  final LongAdder completionMarks = new LongAdder();
  final LongAdder appendedBytes = new LongAdder();
  final LongAdder transactions = new LongAdder();
  final LongAdder claims = new LongAdder();
  final LongAdder fencedAppends = new LongAdder();
  final LongAdder failedTransactions = new LongAdder();

  JdbcStateLogStats snapshot() {
    return new JdbcStateLogStats(stateAppends.sum(), completionMarks.sum(), appendedBytes.sum(),
        transactions.sum(), claims.sum(), fencedAppends.sum(), failedTransactions.sum());
  }
}
