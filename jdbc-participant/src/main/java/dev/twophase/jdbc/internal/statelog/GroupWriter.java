package dev.twophase.jdbc.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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

  private static final Logger LOG = LoggerFactory.getLogger(GroupWriter.class);
  /** A connection idle for longer is validated before a batch, so an idle timeout is no failure. */
  private static final long IDLE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final Sessions sessions;
  private final StateLogTable table;
  private final StateLogDialect dialect;
  private final Counters counters;
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
    try {
      while (true) {
        List<WriteOp> batch = nextBatch();
        if (batch == null) {
          return;
        }
        write(batch);
      }
    } catch (RuntimeException | Error e) {
      LOG.error("The writer of state log table {} stopped: {}", table.name(), e.toString(), e);
    } finally {
      List<WriteOp> left;
      synchronized (lock) {
        stopping = true;
        left = new ArrayList<>(queue);
        queue.clear();
      }
      for (WriteOp op : left) {
        op.fail(new FatalTwoPhaseException(coordinator(op) + ": the writer of state log table "
            + table.name() + " stopped before this write was sent; nothing was written. Close "
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
    List<WriteOp> ops = new ArrayList<>(queued);
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
      failUnsent(ops, e);
      return;
    }
    int[] rows = new int[ops.size()];
    List<String> fencedBy = new ArrayList<>();
    try {
      for (int i = 0; i < ops.size(); i++) {
        rows[i] = execute(c, ops.get(i));
      }
      for (int i = 0; i < ops.size(); i++) {
        fencedBy.add(rows[i] == 0 ? currentHolder(c, ops.get(i).view.coordinatorId()) : null);
      }
      c.commit();
    } catch (SQLException | RuntimeException | Error e) {
      counters.failedTransactions.increment();
      discardSession();
      failUnknown(ops, e);
      return;
    } finally {
      lastUsed = System.nanoTime();
    }
    counters.transactions.increment();
    for (int i = 0; i < ops.size(); i++) {
      complete(ops.get(i), rows[i], fencedBy.get(i));
    }
  }

  /** Runs one write; the rows it updated (0: fenced), or -1 for a mark with nothing to write. */
  private int execute(Connection c, WriteOp op) throws SQLException {
    CoordinatorView v = op.view;
    switch (op.kind) {
      case STATE -> {
        try (PreparedStatement s = c.prepareStatement(table.appendState)) {
          s.setLong(1, op.checkpointId);
          s.setLong(2, v.ownerEpoch());
          s.setBytes(3, op.payload);
          s.setLong(4, op.checksum);
          s.setString(5, v.coordinatorId());
          s.setLong(6, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      case COMPLETION -> {
        if (op.completion < 0) {
          return -1;
        }
        try (PreparedStatement s = c.prepareStatement(table.appendCompletion)) {
          s.setLong(1, op.completion);
          s.setString(2, v.coordinatorId());
          s.setLong(3, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      case RELEASE -> {
        try (PreparedStatement s = c.prepareStatement(table.release)) {
          s.setLong(1, Math.max(0, op.completion));
          s.setString(2, v.coordinatorId());
          s.setLong(3, v.ownerEpoch());
          return s.executeUpdate();
        }
      }
      default -> throw new IllegalStateException("unknown write " + op.kind);
    }
  }

  /** The epoch and holder now in the row of a fenced coordinator, for the message. */
  private String currentHolder(Connection c, String coordinatorId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(table.holderOf)) {
      s.setString(1, coordinatorId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return "its row is gone";
        }
        String holder = rs.getString(2);
        return "it is now at epoch " + rs.getLong(1) + ", "
            + (holder == null ? "released" : "held by '" + holder + "'");
      }
    }
  }

  private void complete(WriteOp op, int rows, String fencedBy) {
    CoordinatorView v = op.view;
    if (rows < 0) {
      op.succeed();
      return;
    }
    if (rows == 0) {
      String message = coordinator(op) + " was claimed by another owner: this owner's epoch "
          + v.ownerEpoch() + " is fenced (" + fencedBy + ")"
          + (op.kind == WriteOp.Kind.STATE
              ? "; checkpoint " + op.checkpointId + " was not stored" : "")
          + ". This coordinator is a zombie: stop it and close its log";
      v.fenced(message);
      if (op.kind == WriteOp.Kind.STATE) {
        counters.fencedAppends.increment();
        op.fail(new FencedException(message, null, op.checkpointId, null));
      } else {
        LOG.info("{}", message);
        op.succeed(); // a fenced view releases nothing and loses only a mark
      }
      return;
    }
    switch (op.kind) {
      case STATE -> {
        counters.stateAppends.increment();
        counters.appendedBytes.add(op.payload.length);
      }
      case COMPLETION, RELEASE -> {
        if (op.completion >= 0) {
          v.completionWritten(op.completion);
          counters.completionMarks.increment();
        }
      }
    }
    op.succeed();
  }

  /** Nothing was sent: no connection, or it failed its checks. */
  private void failUnsent(List<WriteOp> ops, Throwable e) {
    for (WriteOp op : ops) {
      if (op.kind == WriteOp.Kind.COMPLETION) {
        LOG.warn("{}: a completion mark was not written ({}); it is written with the next write",
            coordinator(op), e.toString());
        op.view.completionLost(op.completion);
        op.succeed();
      } else if (e instanceof TwoPhaseException t && ops.size() == 1) {
        op.fail(t);
      } else {
        op.fail(new FatalTwoPhaseException(coordinator(op) + ": no connection to the database "
            + "for state log table " + table.name() + " (" + describe(e) + "); nothing was "
            + "written", e, Math.max(-1, op.checkpointId), null));
      }
    }
  }

  /** The transaction failed after its writes were sent: their outcome is unknown. */
  private void failUnknown(List<WriteOp> ops, Throwable e) {
    LOG.error("A transaction of state log table {} on {} failed after its writes were sent ({}): "
        + "the outcome of its {} writes is unknown", table.name(), dialect.product(), describe(e),
        ops.size(), e);
    for (WriteOp op : ops) {
      switch (op.kind) {
        case STATE -> {
          String message = coordinator(op) + ": the append of checkpoint " + op.checkpointId
              + " to state log table " + table.name() + " on " + dialect.product()
              + " failed after it was sent (" + describe(e) + "): whether it was committed is "
              + "unknown, so the decision of checkpoint " + op.checkpointId + " is unknown. The "
              + "coordinator must stop and recover (open it again, which reads what the table "
              + "holds); the log does not retry an append, and this coordinator log is unusable";
          op.view.broken(message);
          op.fail(new FatalTwoPhaseException(message, e, op.checkpointId, null));
        }
        case COMPLETION -> {
          op.view.completionLost(op.completion);
          op.succeed();
        }
        case RELEASE -> op.fail(new FatalTwoPhaseException(coordinator(op) + " was not released "
            + "(" + describe(e) + "): its owner name stays in the table until this owner claims "
            + "it again or another owner takes it over", e));
      }
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

  private String coordinator(WriteOp op) {
    return "coordinator '" + op.view.coordinatorId() + "' (epoch " + op.view.ownerEpoch()
        + ") in state log table " + table.name();
  }

  private static String describe(Throwable e) {
    return e instanceof SQLException s ? SqlErrors.describe(s) : e.toString();
  }
}
