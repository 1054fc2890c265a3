package dev.twophase.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;

/**
 * What every dialect shares, written once: finishing a prepared transaction from a new session
 * and listing the prepared ones, the checks on a transaction name, and how the database's answer
 * to a commit or rollback decides an outcome. A dialect supplies its statements and which of its
 * errors says "no such transaction".
 *
 * <p>The rule: only "not listed" proves that nothing is left to finish. An answer "no such
 * transaction" counts as {@link Resolution#NOT_PREPARED} only if the listing agrees; while the
 * database still lists the name (MariaDB does while the session that prepared it lives) it is a
 * {@link BranchStillAttachedException}, for a later attempt to decide.
 *
 * @param <S> the session a dialect finishes and lists transactions on: a {@link
 *     java.sql.Connection} for the SQL dialects, an {@link javax.transaction.xa.XAResource} for XA
 */
abstract class DialectTemplate<S> implements Dialect {

  /** Work on a session. */
  @FunctionalInterface
  interface SessionWork<S, T> {
    T run(S session) throws SQLException;
  }

  /** Runs {@code work} on a new session of the dialect's, closed after. */
  abstract <T> T onNewSession(SessionWork<S, T> work) throws SQLException;

  /** The names of the prepared transactions the database lists on {@code session} (ours only). */
  abstract List<String> listPrepared(S session) throws SQLException;

  /** Commits ({@code commit} true) or rolls back the prepared transaction {@code name}. */
  abstract void runFinish(S session, String name, boolean commit) throws SQLException;

  /** Whether {@code e}, the answer to {@link #runFinish}, says the database knows no such name. */
  abstract boolean isUnknownTransaction(SQLException e);

  /**
   * Whether to list before finishing, and finish only a name listed exactly once: for databases
   * that accept duplicate names and would finish an arbitrary one (H2), or that silently ignore
   * finishing a name they did not list first (H2's XA). Default false.
   */
  boolean listsBeforeFinishing() {
    return false;
  }

  /**
   * Refuses a name that is not {@link BranchNames#requireSafe safe} or longer than {@link
   * #maxNameBytes()}.
   *
   * @throws IllegalArgumentException for such a name
   */
  final void requireName(String name) {
    BranchNames.requireSafe(name);
    int bytes = name.getBytes(StandardCharsets.US_ASCII).length;
    if (bytes > maxNameBytes()) {
      throw new IllegalArgumentException(product() + " transaction name " + name + " is " + bytes
          + " bytes long; the database takes at most " + maxNameBytes());
    }
  }

  @Override
  public final Resolution commitRecovered(String name) throws SQLException {
    requireName(name);
    return onNewSession(s -> finishOn(s, name, true));
  }

  @Override
  public final Resolution rollbackRecovered(String name) throws SQLException {
    requireName(name);
    return onNewSession(s -> finishOn(s, name, false));
  }

  @Override
  public final List<String> preparedNames() throws SQLException {
    return onNewSession(this::listPrepared);
  }

  /**
   * Commits ({@code commit} true) or rolls back the prepared transaction {@code name} on {@code
   * session}, and says what the database proved.
   *
   * @throws BranchStillAttachedException if the database lists the name but answers that it knows
   *     no such transaction
   */
  final Resolution finishOn(S session, String name, boolean commit) throws SQLException {
    String step = commit ? "commit" : "rollback";
    if (listsBeforeFinishing()) {
      int listed = Collections.frequency(listPrepared(session), name);
      if (listed == 0) {
        return Resolution.NOT_PREPARED;
      }
      if (listed > 1) {
        throw new SQLException(product() + " lists " + listed + " prepared transactions named "
            + name + " (it accepts duplicate names, and a " + step + " would finish an arbitrary "
            + "one of them): finish them by hand after checking which rows each holds", "25000");
      }
    }
    try {
      runFinish(session, name, commit);
      return Resolution.DONE;
    } catch (SQLException e) {
      if (!isUnknownTransaction(e)) {
        throw e;
      }
      boolean listed;
      try {
        listed = listPrepared(session).contains(name);
      } catch (SQLException again) {
        again.addSuppressed(e);
        throw again;
      }
      if (listed) {
        throw new BranchStillAttachedException(product() + " lists transaction " + name + " as "
            + "prepared but answers its " + step + " with \"no such transaction\" ("
            + SqlErrors.describe(e) + "): the session that prepared it is still alive, or the "
            + "server has not yet noticed that it ended. It can be finished once that session ends",
            e);
      }
      return Resolution.NOT_PREPARED; // finished meanwhile, or never prepared: the marker tells
    }
  }
}
