package dev.twophase.jdbc;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FencedException;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.RetirementListener;
import dev.twophase.TransactionContext;
import dev.twophase.TransactionNames;
import dev.twophase.Writable;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.jdbc.internal.BatchWriter;
import dev.twophase.jdbc.internal.OwnerLocks;
import dev.twophase.jdbc.internal.TransactionCodec;
import dev.twophase.jdbc.internal.TransactionEngine;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once rows in a relational database: each checkpoint's rows are one database transaction,
 * prepared at the checkpoint ({@code PREPARE TRANSACTION}, {@code XA PREPARE}, {@code PREPARE
 * COMMIT}) and committed once the coordinator's decision is durable, also by a new process after
 * a crash.
 *
 * <p>The application writes through the connection bound to the current transaction:
 * <pre>{@code
 * JdbcParticipant<Order> db = JdbcParticipant.builder(dataSource).build();
 * Connection c = db.connection(coordinator.currentTransaction(db));
 * try (PreparedStatement s = c.prepareStatement("INSERT INTO orders VALUES (?, ?)")) { ... }
 * }</pre>
 * or, with {@link Builder#insert}, through the coordinator's {@code Output} in JDBC batches.
 * Read the connection again after every checkpoint: the old one refuses every call once its
 * transaction is pre-committed. The connection refuses {@code commit}, {@code rollback()}, {@code
 * setAutoCommit(true)} and {@code close}: those are the participant's.
 *
 * <p>Guarantees. After {@code preCommit} the rows are durable in the database and invisible; the
 * decided ones become visible at commit, exactly once. Outcomes are never guessed: a transaction
 * the database no longer holds prepared is {@code ALREADY_COMMITTED} only if its marker row
 * (inserted in the transaction right before the prepare) is there, {@code LOST} only if it is not,
 * and any other answer is thrown and retried. A transaction that ran no statement prepares
 * nothing and commits as a no-op.
 *
 * <p>Threads: one connection per transaction from the {@code DataSource} (a pool), so the
 * committer thread commits checkpoint n on its connection while the application writes n + 1 on
 * another. Size the pool for the open transaction plus every pending checkpoint plus one.
 *
 * @param <IN> the record type of the batch insert path ({@code Object} if unused)
 */
@PublicEvolving
public final class JdbcParticipant<IN>
    implements Participant<JdbcTransaction, Void>, Writable<IN, JdbcTransaction>,
        RetirementListener<JdbcTransaction> {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcParticipant.class);

  private final TransactionEngine engine;
  private final String insertSql;
  private final dev.twophase.jdbc.RowBinder<? super IN> binder;
  private final int batchSize;
  private final int markerDeleteBatch;
  private final Map<String, BatchWriter<IN>> writers = new ConcurrentHashMap<>();
  /** Names of retired transactions whose marker rows wait for the next batched delete. */
  private final List<String> retired = new ArrayList<>();
  /** Who owns each prefix this participant works on, in the database ({@link OwnerLocks}). */
  private final OwnerLocks locks;
  /** The claims this participant holds, by transaction-name prefix. */
  private final Map<String, OwnerLocks.Claim> claimed = new ConcurrentHashMap<>();
  /**
   * The prefixes this participant claimed for a coordinator on a shared state log, with the owner
   * epoch it claimed them under (recorded in the marker table's owner row instead of a lock).
   */
  private final Map<String, Long> claimedShared = new ConcurrentHashMap<>();

  JdbcParticipant(TransactionEngine engine, String insertSql,
      dev.twophase.jdbc.RowBinder<? super IN> binder, int batchSize, int markerDeleteBatch) {
    this.engine = engine;
    this.insertSql = insertSql;
    this.binder = binder;
    this.batchSize = batchSize;
    this.markerDeleteBatch = markerDeleteBatch;
    this.locks = new OwnerLocks(engine.dialect());
  }

  /** A builder over a {@code DataSource} of PostgreSQL, MariaDB, MySQL or H2 (detected). */
  public static JdbcParticipantBuilder<Object> builder(javax.sql.DataSource dataSource) {
    return JdbcParticipantBuilder.forDataSource(dataSource);
  }

  /**
   * A builder over any database's {@code XADataSource}, through the driver's XAResource. (A
   * separate name: many drivers' data sources are both a {@code DataSource} and an {@code
   * XADataSource}, and {@link #builder} picks the SQL dialect, which is the better path where one
   * exists.)
   */
  public static JdbcParticipantBuilder<Object> xaBuilder(javax.sql.XADataSource dataSource) {
    return JdbcParticipantBuilder.forXaDataSource(dataSource);
  }

  /**
   * The connection bound to {@code transaction}, for the application's statements. Valid until
   * the transaction is pre-committed or aborted; do not close it.
   *
   * @throws dev.twophase.FatalTwoPhaseException if the transaction is not open in this participant
   *     (finished, or another participant's), or the participant is closed
   */
  public Connection connection(JdbcTransaction transaction) {
    return engine.connection(transaction);
  }

  /** The database this participant works on, e.g. {@code PostgreSQL}. */
  public String database() {
    return engine.dialect().product();
  }

  @Override
  public Codec<JdbcTransaction> transactionCodec() {
    return TransactionCodec.INSTANCE;
  }

  @Override
  public JdbcTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    return engine.begin(context.transactionNamePrefix(), context.transactionName(),
        context.ownerEpoch(), context.checkpointId());
  }

  /**
   * The batch insert writer of {@code transaction}. It prepares its statement at the first record,
   * so a transaction that receives no record (and runs no statement of the application's) stays
   * empty.
   */
  @Override
  public RecordWriter<IN> writerFor(JdbcTransaction transaction) {
    if (insertSql == null) {
      return record -> {
        throw new dev.twophase.FatalTwoPhaseException(engine.describe(transaction) + " has no insert statement:"
            + " build the participant with JdbcParticipant.builder(dataSource).insert(sql, binder)"
            + " to write records through Output, or write through connection(handle)");
      };
    }
    BatchWriter<IN> writer = new BatchWriter<>(
        () -> engine.writerConnection(transaction), insertSql, binder, batchSize);
    writers.put(transaction.name(), writer);
    return writer::write;
  }

  /**
   * Sends the rows still batched, then inserts the marker row and prepares the transaction (one
   * round trip on PostgreSQL). Durable on return. A transaction in which no statement was created
   * prepares nothing and returns an {@link JdbcTransaction#empty() empty} handle. A transaction
   * with a failed batch of the insert path is never prepared: this throws, so the checkpoint fails
   * and the coordinator aborts it, on every database alike (H2 and MariaDB would keep the batch's
   * other rows, PostgreSQL aborts the whole transaction).
   */
  @Override
  public JdbcTransaction preCommit(JdbcTransaction transaction) throws Exception {
    closeWriter(transaction, true);
    return engine.preCommit(transaction);
  }

  /**
   * Commits a decided transaction. On a shared state log, a transaction that is gone without its
   * marker row, while a newer owner epoch is recorded for its coordinator, was finished by that
   * owner's recovery (which deletes earlier owners' marker rows): this owner was superseded, and
   * the commit throws a {@link FencedException} rather than reporting a transaction lost.
   */
  @Override
  public CommitOutcome commit(JdbcTransaction transaction) throws Exception {
    CommitOutcome outcome = engine.commit(transaction);
    if (outcome == CommitOutcome.LOST) {
      checkNotSuperseded(transaction);
    }
    return outcome;
  }

  private void checkNotSuperseded(JdbcTransaction transaction) throws SQLException {
    for (Map.Entry<String, Long> claim : claimedShared.entrySet()) {
      String prefix = claim.getKey();
      if (TransactionNames.isOwn(prefix, TransactionNames.unshorten(prefix, transaction.name()))) {
        long newest = engine.ownerEpoch(prefix);
        if (newest > claim.getValue()) {
          throw new FencedException(database() + ": transaction " + transaction.name() + " is no longer prepared "
              + "and its marker row is gone, because a newer owner (epoch " + newest + ") took coordinator "
              + "transactions " + prefix + "* over on the shared state log and its recovery finished them; this "
              + "owner (epoch " + claim.getValue() + ") was superseded and must stop");
        }
      }
    }
  }

  @Override
  public void abort(JdbcTransaction transaction) throws Exception {
    closeWriter(transaction, false);
    engine.abort(transaction);
  }

  /**
   * Rolls back, from the handle alone, a transaction no decision covers: {@code ABORTED} if the
   * database held it prepared; {@code COMMITTED} if it is no longer prepared and its marker row
   * proves it committed (the state log lost a decision); {@code NOT_FOUND} otherwise (an open
   * transaction died with its session, or it was never prepared, or already rolled back).
   */
  @Override
  public AbortOutcome recoverAndAbort(JdbcTransaction transaction) throws Exception {
    return engine.recoverAndAbort(transaction);
  }

  /**
   * Claims the context's transactions in the database before recovery touches any of them: a
   * session-level advisory lock on PostgreSQL, MariaDB and MySQL, so that a copy of the
   * coordinator's state log running beside it is refused; on a shared state log, the owner epoch
   * recorded in the marker table instead, so that a new owner starts while a superseded one still
   * holds its sessions.
   */
  @Override
  public void startRecovery(ParticipantContext context) throws SQLException {
    claim(context);
  }

  /**
   * On a shared state log, records the owner epoch in the marker table (refused if a newer owner is
   * recorded): the log's claim fenced every earlier owner, whose process may still hold its
   * sessions, so nothing is locked, and the epochs in the names keep the owners' transactions
   * apart. Otherwise takes the advisory lock.
   */
  private void claim(ParticipantContext context) throws SQLException {
    String prefix = context.transactionNamePrefix();
    long epoch = context.ownerEpoch();
    if (context.sharedLog()) {
      if (!claimedShared.containsKey(prefix)) {
        long newest = engine.raiseOwnerEpoch(prefix, epoch);
        if (newest > epoch) {
          throw new FencedException(database() + ": the transactions " + prefix + "* were claimed by a newer owner "
              + "(epoch " + newest + ") of coordinator '" + context.coordinatorId() + "' on its shared state log, so "
              + "this participant ('" + context.participantName() + "', owner epoch " + epoch + ") is superseded "
              + "and must not touch them: stop this process; the newer owner recovers the coordinator");
        }
        claimedShared.put(prefix, epoch);
      }
    } else if (!claimed.containsKey(prefix)) {
      claimed.put(prefix, locks.claim(prefix, epoch, context.coordinatorId(), context.participantName()));
    }
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<JdbcTransaction, Void> context) throws Exception {
    claim(context); // an engine that does not call startRecovery: still before any rollback
    List<String> rolledBack = engine.rollBackLeftovers(context.leftovers(JdbcTransaction::name));
    if (!rolledBack.isEmpty()) {
      LOG.info("{}: rolled back {} prepared transaction(s) of earlier runs that no decision "
          + "covers: {}", database(), rolledBack.size(), rolledBack);
    }
  }

  /**
   * Deletes the marker rows of retired transactions (no commit will ask about them again), in
   * batches of {@link JdbcParticipantBuilder#markerDeleteBatch}: each delete is a durable
   * transaction of its own in the database, and the coordinator calls this on its committer
   * thread, ahead of the next commit. Rows still waiting for their batch when the process ends
   * are deleted at the next start ({@link #onEarlierIncarnationsRetired}).
   */
  @Override
  public void onRetired(List<JdbcTransaction> transactions) throws Exception {
    List<String> batch = null;
    synchronized (retired) {
      for (JdbcTransaction t : transactions) {
        if (!t.empty()) {
          retired.add(t.name());
        }
      }
      if (retired.size() >= markerDeleteBatch) {
        batch = new ArrayList<>(retired);
        retired.clear();
      }
    }
    if (batch != null) {
      engine.deleteMarkers(batch);
    }
  }

  /** Deletes the marker rows this participant wrote in earlier incarnations. */
  @Override
  public void onEarlierIncarnationsRetired(ParticipantContext context) throws Exception {
    int deleted = engine.deleteEarlierMarkers(context.transactionNamePrefix(), context.ownerEpoch());
    if (deleted > 0) {
      LOG.debug("{}: deleted {} marker row(s) of earlier incarnations", database(), deleted);
    }
  }

  @Override
  public Optional<java.time.Duration> transactionTimeout() {
    return Optional.empty(); // prepared transactions do not expire
  }

  /**
   * Releases the connections (open transactions die with their sessions, prepared ones stay
   * prepared for the next start) and deletes the marker rows of retired transactions still
   * waiting for their batch, best effort.
   */
  @Override
  public void close() {
    for (String name : List.copyOf(writers.keySet())) {
      closeWriter(new JdbcTransaction(name, false), false);
    }
    engine.close();
    for (OwnerLocks.Claim claim : claimed.values()) {
      claim.close();
    }
    claimed.clear();
    claimedShared.clear();
    List<String> batch;
    synchronized (retired) {
      batch = new ArrayList<>(retired);
      retired.clear();
    }
    try {
      engine.deleteMarkers(batch);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("{}: deleting {} retired marker rows at close failed; the next start deletes them",
          database(), batch.size(), e);
    }
  }

  private void closeWriter(JdbcTransaction t, boolean flush) {
    BatchWriter<IN> writer = writers.remove(t.name());
    if (writer == null) {
      return;
    }
    boolean failedBefore = writer.failed();
    try {
      if (flush) {
        writer.flush();
      }
    } catch (SQLException e) {
      try {
        writer.close();
      } catch (SQLException again) {
        e.addSuppressed(again);
      }
      throw new dev.twophase.TwoPhaseException(database() + " transaction " + t + ": "
          + (failedBefore
              ? e.getMessage()
              : "the last batch of inserted rows failed (" + dev.twophase.jdbc.internal.SqlErrors.describe(e)
                  + "); the checkpoint fails and the transaction is rolled back"), e);
    }
    try {
      writer.close();
    } catch (SQLException e) {
      LOG.debug("closing the insert statement of {} failed", t, e);
    }
  }

  @Override
  public String toString() {
    return "JdbcParticipant(" + database() + ")";
  }

}
