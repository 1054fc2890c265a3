package dev.twophase.jdbc.internal;

import dev.twophase.jdbc.internal.BranchState.Move;
import dev.twophase.jdbc.internal.Dialect.Resolution;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What every dialect's branch shares: its name and connection, the {@link BranchState} machine
 * that orders its steps, and the rule that a session on which a step failed is never reused. A
 * dialect's branch supplies only the steps on its session.
 */
abstract class BranchTemplate implements Branch {

  /** A step on the branch's session. */
  @FunctionalInterface
  interface SessionStep<T> {
    T run() throws SQLException;
  }

  final String product;
  final String name;
  final Connection connection;
  private BranchState state = BranchState.ACTIVE;
  /** A step failed: the session may hold something of this branch, so it is never reused. */
  private boolean tainted;

  BranchTemplate(String product, String name, Connection connection) {
    this.product = product;
    this.name = name;
    this.connection = connection;
  }

  /**
   * Runs {@code lastStatement}, then makes the transaction durable but invisible, on the branch's
   * session.
   *
   * @return false if the database answered that the transaction wrote nothing and ended it
   *     (XA_RDONLY), true if it is prepared
   */
  abstract boolean prepareOnSession(String lastStatement) throws SQLException;

  /**
   * Commits ({@code commit} true) or rolls back the prepared transaction on the branch's session,
   * with the answers of {@link Dialect#commitRecovered}.
   */
  abstract Resolution finishPrepared(boolean commit) throws SQLException;

  /** Rolls back the transaction before it was prepared, on the branch's session. */
  abstract void rollbackActive() throws SQLException;

  /**
   * Gives the session back to its pool if {@code reusable} (the transaction finished and no step
   * failed), else closes it for good. Never throws.
   */
  abstract void closeSession(boolean reusable);

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Connection connection() {
    return connection;
  }

  @Override
  public final boolean isPrepared() {
    return state == BranchState.PREPARED;
  }

  @Override
  public final void prepare(String lastStatement) throws SQLException {
    state.after(Move.PREPARE, describe()); // refused before the session is touched
    boolean prepared = tainting(() -> prepareOnSession(lastStatement));
    state = state.after(prepared ? Move.PREPARE : Move.PREPARE_READ_ONLY, describe());
    if (!prepared) {
      throw new SQLException(product + " answered the prepare of transaction " + name + " with "
          + "read-only (XA_RDONLY): it saw no write in the transaction (not even the marker row), so there is "
          + "nothing to commit", "25000");
    }
  }

  @Override
  public final Resolution commit() throws SQLException {
    return move(Move.COMMIT, () -> finishPrepared(true));
  }

  @Override
  public final Resolution rollback() throws SQLException {
    if (state == BranchState.ACTIVE) {
      return move(Move.ROLL_BACK, () -> {
        rollbackActive();
        return Resolution.DONE;
      });
    }
    return move(Move.ROLL_BACK, () -> finishPrepared(false));
  }

  @Override
  public final void release() {
    if (state == BranchState.RELEASED) {
      return; // idempotent
    }
    boolean reusable = state == BranchState.FINISHED && !tainted;
    state = state.after(Move.RELEASE, describe());
    closeSession(reusable);
  }

  /** Checks {@code move}, runs {@code step}, then enters the state the move leads to. */
  private <T> T move(Move move, SessionStep<T> step) throws SQLException {
    BranchState next = state.after(move, describe());
    T result = tainting(step);
    state = next;
    return result;
  }

  /**
   * Runs a step that changes the session's transaction state; on any failure (an {@link Error}
   * too) the session is tainted, so {@link #release()} closes it for good.
   */
  private <T> T tainting(SessionStep<T> step) throws SQLException {
    boolean ok = false;
    try {
      T result = step.run();
      ok = true;
      return result;
    } finally {
      if (!ok) {
        tainted = true;
      }
    }
  }

  /** "PostgreSQL transaction p-1-7", for messages. */
  final String describe() {
    return product + " transaction " + name;
  }

  @Override
  public String toString() {
    return describe() + " (" + state + ")";
  }
}
