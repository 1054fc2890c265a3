package dev.twophase.jdbc.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log's single writer (group commit): a thread that takes every write queued since its last
 * transaction, up to {@code maxBatch}, and runs them in one database transaction on a connection
 * of its own. Each write is a conditional update on the coordinator's epoch; a write that updates
 * no row is fenced on its own, the others commit. A transaction that fails leaves the outcome of
 * all its state writes unknown: their views turn unusable and their callers get a {@link
 * FatalTwoPhaseException} saying so; nothing is retried. Writes are run in the order of their
 * coordinator ids (a stable sort), so that two processes' batches lock rows in the same order.
 *
 * <p>{@link #stop()} lets the writer finish what was queued, then ends the thread and closes its
 * connection; writes submitted after it are refused. If the thread ends for any other reason (an
 * {@link Error} the loop could not handle), every queued write fails and later ones are refused.
 */
@Internal
final class GroupWriter {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);
  /** A connection idle for longer is validated before a batch, so an idle timeout is no failure. */
  private static final long IDLE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final Sessions sessions;
  private final StateLogTable table;
  private final StateLogDialect dialect;
  private final Counters counters;
  private final BatchOutcomes outcomes;
  private final int maxBatch;
  private final Thread thread;

  private final Object lock = new Object();
  /** Guarded by {@link #lock}. */
  private final ArrayDeque<WriteOp> queue = new ArrayDeque<>();
  /** Guarded by {@link #lock}. */
  private boolean stopping;

  /** The writer thread's connection, or null; only the writer thread touches it. */
  private Sessions.Session session;
  private long lastUsed;

  GroupWriter(Sessions sessions, StateLogTable table, StateLogDialect dialect, Counters counters,
      int maxBatch) {
    this.sessions = sessions;
    this.table = table;
    this.dialect = dialect;
    this.counters = counters;
    this.outcomes = new BatchOutcomes(table, dialect, counters);
    this.maxBatch = maxBatch;
    this.thread = new Thread(this::run, "twophase-state-log-writer-" + table.name());
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Queues {@code op}; false if the writer is stopping or stopped (the op was not queued). */
  boolean submit(WriteOp op) {
    synchronized (lock) {
      if (stopping) {
        return false;
      }
      queue.add(op);
      lock.notifyAll();
      return true;
    }
  }

  /** Whether the writer takes writes. */
  boolean isRunning() {
    synchronized (lock) {
      return !stopping;
    }
  }

  /** Lets the writer finish what is queued and waits for its thread to end. Idempotent. */
  void stop() {
    synchronized (lock) {
      stopping = true;
      lock.notifyAll();
    }
    if (Thread.currentThread() == thread) {
      return;
    }
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The writer thread, for tests that check it ended. */
  Thread thread() {
    return thread;
  }

  private void run() {
    List<WriteOp> batch = List.of();
    try {
      while (true) {
        batch = nextBatch();
        if (batch == null) {
          return;
        }
        write(batch);
      }
    } catch (RuntimeException | Error e) {
      LOG.error("The writer of state log table {} stopped: {}", table.name(), e.toString(), e);
      // whatever of the batch in progress has no outcome yet may have been sent
      for (WriteOp op : batch == null ? List.<WriteOp>of() : batch) {
        op.fail(new FatalTwoPhaseException(outcomes.coordinator(op) + ": the writer of state log "
            + "table " + table.name() + " failed during this write (" + e + "): whether it was committed "
            + "is unknown; the coordinator must stop and recover", e,
            Math.max(-1, op.checkpointId), null));
      }
    } finally {
      List<WriteOp> left;
      synchronized (lock) {
        stopping = true;
        left = new ArrayList<>(queue);
        queue.clear();
      }
      for (WriteOp op : left) {
        op.fail(new FatalTwoPhaseException(outcomes.coordinator(op) + ": the writer of state log "
            + "table " + table.name() + " stopped before this write was sent; nothing was written. Close "
            + "the log and open it again", null, Math.max(-1, op.checkpointId), null));
      }
      closeSession();
    }
  }

  /** The next writes to run, or null once stopping with nothing queued. */
  private List<WriteOp> nextBatch() {
    synchronized (lock) {
      while (queue.isEmpty() && !stopping) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          // only stop() ends the writer: it never leaves a queued write without an outcome
        }
      }
      if (queue.isEmpty()) {
        return null;
      }
      List<WriteOp> batch = new ArrayList<>(Math.min(queue.size(), maxBatch));
      while (!queue.isEmpty() && batch.size() < maxBatch) {
        batch.add(queue.poll());
      }
      return batch;
    }
  }

  private void write(List<WriteOp> queued) {
    List<WriteOp> ops = new ArrayList<>(queued.size());
    for (WriteOp op : queued) {
      RuntimeException refused = op.kind == WriteOp.Kind.STATE ? op.view.unusable(op) : null;
      if (refused != null) {
        op.fail(refused); // fenced or unusable since it was queued: not sent
      } else {
        ops.add(op);
      }
    }
    if (ops.isEmpty()) {
      return;
    }
    ops.sort(Comparator.comparing(op -> op.view.coordinatorId()));
    for (WriteOp op : ops) {
      if (op.kind != WriteOp.Kind.STATE) {
        op.completion = op.view.takeCompletion(op.kind == WriteOp.Kind.RELEASE);
      }
    }
    Connection c;
    try {
      c = connection();
    } catch (SQLException | RuntimeException | Error e) {
      outcomes.failUnsent(ops, e);
      return;
    }
    int[] rows = new int[ops.size()];
    List<String> fencedBy = new ArrayList<>();
    try {
      for (int i = 0; i < ops.size(); i++) {
        rows[i] = BatchStatements.execute(c, table, ops.get(i));
      }
      for (int i = 0; i < ops.size(); i++) {
        fencedBy.add(rows[i] != 0 ? null
            : BatchStatements.currentHolder(c, table, ops.get(i).view.coordinatorId()));
      }
      c.commit();
    } catch (SQLException | RuntimeException | Error e) {
      counters.failedTransactions.increment();
      discardSession();
      outcomes.failUnknown(ops, e);
      return;
    } finally {
      lastUsed = System.nanoTime();
    }
    counters.transactions.increment();
    for (int i = 0; i < ops.size(); i++) {
      outcomes.complete(ops.get(i), rows[i], fencedBy.get(i));
    }
  }

  private Connection connection() throws SQLException {
    if (session != null && System.nanoTime() - lastUsed > IDLE_CHECK_NANOS
        && !session.connection().isValid(sessions.timeoutSeconds())) {
      discardSession(); // it went away while idle: nothing of ours was sent on it
    }
    if (session == null) {
      Sessions.Session s = sessions.open(false);
      boolean ok = false;
      try {
        dialect.checkSession(s.connection());
        ok = true;
      } finally {
        if (!ok) {
          Sessions.giveBack(s);
        }
      }
      session = s;
    }
    return session.connection();
  }

  private void discardSession() {
    Sessions.Session s = session;
    session = null;
    if (s != null) {
      Sessions.discard(s.connection());
    }
  }

  private void closeSession() {
    Sessions.Session s = session;
    session = null;
    if (s != null) {
      Sessions.giveBack(s);
    }
  }
}
