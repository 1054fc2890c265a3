package dev.twophase.jdbc;

import dev.twophase.annotation.PublicEvolving;
import java.util.Objects;

/**
 * The handle of one database transaction, as the coordinator logs it: the transaction's name in
 * the database (PostgreSQL gid, XA gtrid, H2 transaction name) and whether anything was prepared.
 * An immutable value; the connection lives in the participant, reached with {@link
 * JdbcParticipant#connection(JdbcTransaction)}.
 *
 * @param name the transaction's name in the database, derived from the coordinator's transaction
 *     name
 * @param empty true once {@code preCommit} found that the transaction wrote nothing: nothing was
 *     prepared, and committing it is a no-op
 */
@PublicEvolving
public record JdbcTransaction(String name, boolean empty) {

  public JdbcTransaction {
    Objects.requireNonNull(name, "name");
  }

  /** A transaction that was begun and may write. */
  public static JdbcTransaction begun(String name) {
    return new JdbcTransaction(name, false);
  }

  /** This transaction, known to have written nothing. */
  public JdbcTransaction asEmpty() {
    return new JdbcTransaction(name, true);
  }

  @Override
  public String toString() {
    return empty ? name + " (empty)" : name;
  }
}
