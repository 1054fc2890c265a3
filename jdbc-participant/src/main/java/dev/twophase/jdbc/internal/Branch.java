package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * One transaction on its own connection, from begin to its end: the application writes through
 * {@link #connection()}, the participant prepares it and later commits or rolls it back on the
 * same session, then {@link #release()}s the connection.
 *
 * <p>Not thread-safe; the participant hands a branch from the application thread to the committer
 * thread only through a happens-before edge (the coordinator's decision).
 */
@Internal
public interface Branch {

  /** The transaction's name in the database. */
  String name();

  /** The connection the application writes through. Never in auto-commit mode. */
  Connection connection();

  /**
   * Runs {@code lastStatement} (the marker row's insert, as literal SQL) in the transaction, then
   * makes the transaction durable but invisible; a dialect may send both in one round trip. After
   * a successful return the transaction survives a crash. The statement's success proves the
   * transaction was not aborted by an earlier error, in which case PostgreSQL would answer {@code
   * PREPARE TRANSACTION} with a silent rollback.
   */
  void prepare(String lastStatement) throws SQLException;

  /**
   * Commits the prepared transaction on this session.
   *
   * @return as {@link Dialect#commitRecovered}
   */
  Dialect.Resolution commit() throws SQLException;

  /** Rolls back, before or after {@link #prepare(String)}; NOT_PREPARED if nothing was left to undo. */
  Dialect.Resolution rollback() throws SQLException;

  /** Whether the branch is prepared and neither committed nor rolled back on this session. */
  boolean isPrepared();

  /**
   * Gives the connection back. A connection whose session may still hold a transaction of this
   * branch is closed for good ({@link Connection#abort}) so that no pool hands it out again; a
   * clean one goes back to the pool. Never throws; idempotent.
   */
  void release();
}
