package dev.twophase.jdbc.internal;

import dev.twophase.AbortOutcome;
import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.JdbcPoints;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.Scheduler;
import dev.twophase.jdbc.JdbcTransaction;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import dev.twophase.FaultInjector;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The participant's protocol over a {@link Dialect} and the {@link MarkerTable}, free of the
 * coordinator's SPI: begin on a connection of its own, prepare with a marker row, commit on the
 * branch's session (or from a new one after a crash), and decide every outcome from what the
 * database proves.
 *
 * <p>Threads: the application thread begins, writes, pre-commits and aborts; the committer thread
 * commits. Live branches are kept in a concurrent map keyed by name; one branch is never used by
 * two threads at once (the coordinator hands a pre-committed transaction to the committer only
 * after its decision).
 */
@Internal
public final class TransactionEngine implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionEngine.class);



  private final String participant;
  private final Dialect dialect;
  private final MarkerTable markers;
  private final MarkerStore markerStore;
  private final FaultInjector faults;
  private final AttachedBranchRetry retryWhileAttached;
  private final Map<String, Live> live = new ConcurrentHashMap<>();
  /** Set by {@link #close()}: from then on nothing is begun, and no connection is handed out. */
  private volatile boolean closed;

  /** One transaction of this process, from begin until it is finished and released. */
  private static final class Live {
    final Branch branch;
    final TransactionConnection connection;
    final Connection proxy;
    final String owner;
    final long epoch;
    final long checkpointId;

    Live(Branch branch, TransactionConnection connection, String owner, long epoch, long checkpointId) {
      this.branch = branch;
      this.connection = connection;
      this.proxy = connection.connection();
      this.owner = owner;
      this.epoch = epoch;
      this.checkpointId = checkpointId;
    }
  }

  /**
   * @param scheduler waits out the pauses between retries of a transaction the database still
   *     counts as attached to another session ({@link AttachedBranchRetry})
   */
  public TransactionEngine(String participant, Dialect dialect, MarkerTable markers, FaultInjector faults,
      Scheduler scheduler) {
    this.participant = participant;
    this.dialect = dialect;
    this.markers = markers;
    this.markerStore = new MarkerStore(dialect, markers);
    this.faults = faults;
    this.retryWhileAttached = new AttachedBranchRetry(scheduler);
  }

  public Dialect dialect() {
    return dialect;
  }

  public MarkerTable markers() {
    return markers;
  }

  /** The text the marker table's owner column holds for {@code prefix}. */
  public static String owner(String prefix) {
    return BranchNames.owner(prefix, MarkerTable.COLUMN_CHARS);
  }

  /** Begins the transaction {@code transactionName} on a new connection. */
  public JdbcTransaction begin(String prefix, String transactionName, long epoch, long checkpointId)
      throws SQLException {
    requireOpen("begin transaction " + transactionName);
    String name = BranchNames.of(prefix, transactionName, dialect.maxNameBytes());
    Branch branch = dialect.begin(name);
    Live l = new Live(branch,
        TransactionConnection.wrap(branch.connection(),
            "connection of " + describe(name, checkpointId)),
        owner(prefix), epoch, checkpointId);
    if (live.putIfAbsent(name, l) != null) {
      branch.release();
      throw new FatalTwoPhaseException(describe(name, checkpointId) + " is already open in this "
          + "process: the coordinator gave the same transaction name twice");
    }
    return JdbcTransaction.begun(name);
  }

  /** The application's connection of a live transaction. */
  public Connection connection(JdbcTransaction t) {
    return require(t, "give its connection").proxy;
  }

  /** Marks a transaction written (the batch writer's statements). */
  public Connection writerConnection(JdbcTransaction t) {
    Live l = require(t, "write");
    l.connection.markUsed();
    return l.proxy;
  }

  private Live require(JdbcTransaction t, String operation) {
    requireOpen(operation + " of transaction " + t);
    Live l = live.get(t.name());
    if (l == null) {
      throw new FatalTwoPhaseException(
          participant + ": cannot " + operation + " of transaction " + t + ": it is not open in "
              + "this participant (finished, begun by another participant, or by another process). "
              + "Read currentTransaction(participant) again after each checkpoint");
    }
    return l;
  }

  private void requireOpen(String operation) {
    if (closed) {
      throw new FatalTwoPhaseException(participant + ": cannot " + operation + ": the participant "
          + "was closed; build a new one for a new coordinator");
    }
  }

  /**
   * Prepares the transaction: nothing if the application never created a statement (the handle
   * becomes empty), else the marker row and the database's prepare. Durable on return.
   */
  public JdbcTransaction preCommit(JdbcTransaction t) throws SQLException {
    Live l = live.get(t.name());
    if (l == null || t.empty()) {
      throw new FatalTwoPhaseException(participant + ": preCommit of transaction " + t + ", which "
          + "is not open in this process; the protocol never pre-commits a transaction twice");
    }
    l.connection.expire("transaction " + t.name() + " was pre-committed; read "
        + "currentTransaction(participant) again after each checkpoint");
    if (!l.connection.used()) {
      try {
        l.branch.rollback();
      } finally {
        finish(l);
      }
      return t.asEmpty();
    }
    faults.reached(JdbcPoints.BEFORE_PREPARE);
    l.branch.prepare(markers.insertSql(t.name(), l.owner, l.epoch));
    faults.reached(JdbcPoints.AFTER_PREPARE);
    return t;
  }

  /**
   * Commits a pre-committed transaction: on its own session if this process prepared it, else
   * from a new one. Never guesses: a transaction the database no longer lists is
   * ALREADY_COMMITTED if its marker row is there and LOST if it is not; an answer that decides
   * nothing is thrown.
   */
  public CommitOutcome commit(JdbcTransaction t) throws SQLException {
    if (t.empty()) {
      // Nothing was prepared, so there is nothing to commit and nothing the database could lose:
      // every commit of it, first or repeated, is the same no-op. (Remembering which ones were
      // committed, to answer ALREADY_COMMITTED the second time, would cost memory per checkpoint
      // for as long as the process runs.)
      return CommitOutcome.COMMITTED;
    }
    Live l = live.get(t.name());
    faults.reached(JdbcPoints.BEFORE_COMMIT);
    Resolution r = null;
    SQLException inSession = null;
    if (l != null && l.branch.isPrepared()) {
      try {
        r = l.branch.commit();
      } catch (SQLException e) {
        inSession = e; // the session may be broken: give it up, and ask from a new one
      }
      finish(l);
    } else if (l != null) {
      finish(l); // not prepared here (a failed prepare): only the database can tell
    }
    if (r == null) {
      try {
        r = retryWhileAttached.run(() -> dialect.commitRecovered(t.name()));
      } catch (SQLException e) {
        if (inSession != null) {
          e.addSuppressed(inSession);
        }
        throw retriable("commit", t, l == null ? -1 : l.checkpointId, e);
      }
    }
    faults.reached(JdbcPoints.AFTER_COMMIT);
    if (r == Resolution.DONE) {
      return CommitOutcome.COMMITTED;
    }
    return markerExists(t) ? CommitOutcome.ALREADY_COMMITTED : CommitOutcome.LOST;
  }

  private boolean markerExists(JdbcTransaction t) throws SQLException {
    return markerStore.exists(t.name());
  }

  /** Rolls back a transaction of this process, open or prepared; tolerates one already gone. */
  public void abort(JdbcTransaction t) throws SQLException {
    if (t.empty()) {
      return;
    }
    Live l = live.get(t.name());
    if (l == null) {
      rollbackRecovered(t);
      return;
    }
    l.connection.expire("transaction " + t.name() + " was aborted");
    try {
      l.branch.rollback();
    } catch (SQLException e) {
      finish(l);
      rollbackRecovered(t);
      return;
    }
    finish(l);
  }

  private void rollbackRecovered(JdbcTransaction t) throws SQLException {
    retryWhileAttached.run(() -> dialect.rollbackRecovered(t.name()));
  }

  /**
   * Rolls back, from the handle alone, a transaction that will not be committed: ABORTED if the
   * database held it prepared, COMMITTED if it is gone and its marker proves it committed,
   * NOT_FOUND if it is gone without a marker (never prepared, rolled back, or empty).
   */
  public AbortOutcome recoverAndAbort(JdbcTransaction t) throws SQLException {
    if (t.empty()) {
      return AbortOutcome.NOT_FOUND;
    }
    Live l = live.remove(t.name());
    if (l != null) {
      l.connection.expire("transaction " + t.name() + " was aborted");
      l.branch.release(); // an open transaction dies with its session; a prepared one stays
    }
    Resolution r = retryWhileAttached.run(() -> dialect.rollbackRecovered(t.name()));
    if (r == Resolution.DONE) {
      return AbortOutcome.ABORTED;
    }
    return markerExists(t) ? AbortOutcome.COMMITTED : AbortOutcome.NOT_FOUND;
  }

  /**
   * Rolls back every prepared transaction the recovery context calls a leftover
   * ({@code RecoveryContext.leftovers}) and that is not live in this process; returns their names.
   */
  public List<String> rollBackLeftovers(Predicate<String> leftover) throws SQLException {
    List<String> rolledBack = new ArrayList<>();
    for (String name : dialect.preparedNames()) {
      if (!live.containsKey(name) && leftover.test(name)) {
        if (retryWhileAttached.run(() -> dialect.rollbackRecovered(name)) == Resolution.DONE) {
          rolledBack.add(name);
        }
      }
    }
    return rolledBack;
  }

  /** Deletes the markers of retired transactions. */
  public int deleteMarkers(Collection<String> names) throws SQLException {
    return markerStore.delete(names);
  }

  /** Deletes the markers of this participant's earlier incarnations. */
  public int deleteEarlierMarkers(String prefix, long epoch) throws SQLException {
    return markerStore.deleteEarlierEpochs(owner(prefix), epoch);
  }

  /**
   * Records {@code epoch} as the newest owner of {@code prefix}'s transactions (a coordinator on a
   * shared state log); returns the newest recorded afterwards, above {@code epoch} if a newer owner
   * claimed them first.
   */
  public long raiseOwnerEpoch(String prefix, long epoch) throws SQLException {
    return markerStore.raiseOwnerEpoch(prefix, owner(prefix), epoch);
  }

  /** The newest owner epoch recorded for {@code prefix}'s transactions, or -1 if none is. */
  public long ownerEpoch(String prefix) throws SQLException {
    return markerStore.ownerEpoch(prefix);
  }

  /** The names of the transactions open or prepared in this process. */
  public Set<String> liveNames() {
    return Set.copyOf(live.keySet());
  }

  private void finish(Live l) {
    live.remove(l.branch.name(), l);
    l.branch.release();
  }

  private RetriableTwoPhaseException retriable(String op, JdbcTransaction t, long checkpoint, SQLException e) {
    return new RetriableTwoPhaseException(
        participant + ": " + op + " of " + dialect.product() + " transaction " + t + " failed ("
            + SqlErrors.describe(e) + "); the coordinator retries it", e, checkpoint, participant);
  }

  /** "participant's PostgreSQL transaction name" for messages. */
  public String describe(JdbcTransaction t) {
    return participant + "'s " + dialect.product() + " transaction " + t;
  }

  private String describe(String name, long checkpointId) {
    return participant + "'s " + dialect.product() + " transaction " + name
        + (checkpointId >= 0 ? " (checkpoint " + checkpointId + ")" : "");
  }

  /**
   * Releases the connections of every live transaction: open ones die with their sessions,
   * prepared ones stay prepared for the next start. Never throws.
   */
  @Override
  public void close() {
    closed = true;
    for (Live l : List.copyOf(live.values())) {
      l.connection.expire("the participant was closed");
      try {
        finish(l);
      } catch (RuntimeException | Error e) {
        LOG.warn("{}: releasing {} failed", participant, l.branch, e);
      }
    }
  }
}
