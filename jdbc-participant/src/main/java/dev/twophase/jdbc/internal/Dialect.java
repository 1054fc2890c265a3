package dev.twophase.jdbc.internal;

import dev.twophase.annotation.Internal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * How one kind of database prepares, commits and lists transactions, over the connections of the
 * source it was made with. The participant builds its protocol on this; nothing here decides an
 * outcome beyond what the database proves.
 *
 * <p>Threads: a dialect is shared and thread-safe; a {@link Branch} is used by one thread at a
 * time.
 */
@Internal
public interface Dialect {

  /** The database's name for messages, e.g. {@code PostgreSQL}. */
  String product();

  /** The longest transaction name the database accepts, in bytes. */
  int maxNameBytes();

  /**
   * Checks the server's settings and privileges once, before any transaction: throws {@link dev.twophase.jdbc.DatabaseSetupException}
   * naming the setting and how to fix it.
   */
  void checkServer() throws SQLException;

  /** Opens a connection, starts a transaction named {@code name} on it. */
  Branch begin(String name) throws SQLException;

  /**
   * Commits the prepared transaction {@code name} from a connection of its own (after a crash, or
   * when the branch's session is gone).
   *
   * @return {@link Resolution#DONE} if this call committed it; {@link Resolution#NOT_PREPARED} if
   *     the database proves it holds no prepared transaction of that name (it was committed, rolled
   *     back, or never prepared: the marker row tells which)
   * @throws BranchStillAttachedException if the database lists the transaction but will not let
   *     this session finish it yet (retry later)
   */
  Resolution commitRecovered(String name) throws SQLException;

  /** As {@link #commitRecovered}, rolling back. */
  Resolution rollbackRecovered(String name) throws SQLException;

  /** The names of every prepared transaction this dialect can see (of every owner). */
  List<String> preparedNames() throws SQLException;

  /**
   * A connection in auto-commit mode for the participant's own statements (marker rows); the
   * caller closes it.
   */
  Connection autoCommitConnection() throws SQLException;

  /** What a call to finish a transaction found. */
  enum Resolution {
    /** This call committed (or rolled back) the prepared transaction. */
    DONE,
    /** The database holds no prepared transaction of that name. */
    NOT_PREPARED
  }
}
