package dev.twophase.jdbc.internal.statelog;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.jdbc.internal.SqlErrors;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the writer reports for each write of a batch: committed, fenced (the update found another
 * epoch), not sent (no connection), or unknown (the transaction failed after its writes were
 * sent), with the messages that name the coordinator, the checkpoint, the table and what to do.
 */
@Internal
final class BatchOutcomes {

  private static final Logger LOG = LoggerFactory.getLogger(StateLogCore.LOGGER);

  private final StateLogTable table;
  private final StateLogDialect dialect;
  private final Counters counters;

  BatchOutcomes(StateLogTable table, StateLogDialect dialect, Counters counters) {
    this.table = table;
    this.dialect = dialect;
    this.counters = counters;
  }

  void complete(WriteOp op, int rows, String fencedBy) {
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
  void failUnsent(List<WriteOp> ops, Throwable e) {
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
  void failUnknown(List<WriteOp> ops, Throwable e) {
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

  String coordinator(WriteOp op) {
    return "coordinator '" + op.view.coordinatorId() + "' (epoch " + op.view.ownerEpoch()
        + ") in state log table " + table.name();
  }

  static String describe(Throwable e) {
    return e instanceof SQLException s ? SqlErrors.describe(s) : e.toString();
  }
}
