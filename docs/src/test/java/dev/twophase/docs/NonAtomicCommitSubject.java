package dev.twophase.docs;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.docs.StagedTableParticipant.Event;
import dev.twophase.docs.StagedTableParticipant.Txn;
import dev.twophase.testkit.crash.CrashEnvironment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;

/**
 * The walk-through's participant with the mistake its page warns about: {@code commit} runs its
 * three statements in auto-commit mode, so a crash between them leaves the rows published while the
 * marker still says PREPARED. The crash test must catch it.
 */
public class NonAtomicCommitSubject extends StagedTableCrashSubject {

  @Override
  public Participant<?, ?> participant(CrashEnvironment environment) throws java.sql.SQLException {
    DataSource database = H2.dataSource(environment.workDirectory());
    return new NonAtomic(
        (StagedTableParticipant) super.participant(environment), database, environment.faults());
  }

  /** Delegates everything but {@code commit}. */
  private record NonAtomic(StagedTableParticipant delegate, DataSource database, FaultInjector faults)
      implements Participant<Txn, Void>, Writable<Event, Txn> {

    @Override
    public CommitOutcome commit(Txn t) throws Exception {
      try (Connection c = database.getConnection()) {
        String state;
        try (PreparedStatement q = c.prepareStatement("SELECT state FROM twophase_markers WHERE txn = ?")) {
          q.setString(1, t.name());
          try (ResultSet rs = q.executeQuery()) {
            state = rs.next() ? rs.getString(1) : null;
          }
        }
        if (state == null) {
          return CommitOutcome.LOST;
        }
        if (state.equals("PUBLISHED")) {
          return CommitOutcome.ALREADY_COMMITTED;
        }
        run(c, "INSERT INTO events (id, body) SELECT id, body FROM events_staging WHERE txn = ?", t);
        faults.reached("staged.commit.afterCopy"); // auto-commit: the copy is already durable here
        run(c, "DELETE FROM events_staging WHERE txn = ?", t);
        run(c, "UPDATE twophase_markers SET state = 'PUBLISHED' WHERE txn = ?", t);
      }
      return CommitOutcome.COMMITTED;
    }

    private static void run(Connection c, String sql, Txn t) throws Exception {
      try (PreparedStatement s = c.prepareStatement(sql)) {
        s.setString(1, t.name());
        s.executeUpdate();
      }
    }

    @Override
    public Codec<Txn> transactionCodec() {
      return delegate.transactionCodec();
    }

    @Override
    public Txn beginTransaction(TransactionContext<Void> context) throws Exception {
      return delegate.beginTransaction(context);
    }

    @Override
    public RecordWriter<Event> writerFor(Txn t) {
      return delegate.writerFor(t);
    }

    @Override
    public Txn preCommit(Txn t) throws Exception {
      return delegate.preCommit(t);
    }

    @Override
    public void abort(Txn t) throws Exception {
      delegate.abort(t);
    }

    @Override
    public AbortOutcome recoverAndAbort(Txn t) throws Exception {
      return delegate.recoverAndAbort(t);
    }

    @Override
    public void finishRecoveringContext(RecoveryContext<Txn, Void> context) throws Exception {
      delegate.finishRecoveringContext(context);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
