package dev.twophase.jdbc.internal;

import dev.twophase.FatalTwoPhaseException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link Branch} is, and the moves between its states: written once for the branches of
 * every dialect, SQL and XA alike.
 *
 * <pre>
 * ACTIVE ──prepare──▶ PREPARED ──commit, roll back──▶ FINISHED
 * ACTIVE ──roll back, or a prepare answered read-only──▶ FINISHED
 * ACTIVE, PREPARED, FINISHED ──release──▶ RELEASED
 * </pre>
 *
 * <p>A move from any other state is a bug in the caller, refused with a {@link
 * FatalTwoPhaseException} that names the branch, its state and the order of the steps, before the
 * branch's session is touched.
 */
enum BranchState {
  /** Begun: the application writes; the transaction is neither prepared nor ended. */
  ACTIVE,
  /** Durable but invisible: it survives a crash and waits for its commit or rollback. */
  PREPARED,
  /** Committed or rolled back on its session; the session may go back to a pool. */
  FINISHED,
  /** Its session is given back or closed; nothing more can be done with the branch. */
  RELEASED;

  /** A step of the protocol on a branch: the states it may start from and the one it leads to. */
  enum Move {
    PREPARE("prepare", PREPARED, EnumSet.of(ACTIVE)),
    /** A prepare the database answered read-only (XA_RDONLY): it ended the transaction. */
    PREPARE_READ_ONLY("prepare", FINISHED, EnumSet.of(ACTIVE)),
    COMMIT("commit", FINISHED, EnumSet.of(PREPARED)),
    ROLL_BACK("roll back", FINISHED, EnumSet.of(ACTIVE, PREPARED)),
    RELEASE("release", RELEASED, EnumSet.of(ACTIVE, PREPARED, FINISHED));

    private final String verb;
    private final BranchState to;
    @SuppressWarnings("ImmutableEnumChecker") // unmodifiable, and never leaves this enum
    private final Set<BranchState> from;

    Move(String verb, BranchState to, Set<BranchState> from) {
      this.verb = verb;
      this.to = to;
      this.from = Collections.unmodifiableSet(from);
    }
  }

  /**
   * The state {@code move} leads to from this one.
   *
   * @param branch the branch, for the message ("PostgreSQL transaction p-1-7")
   * @throws FatalTwoPhaseException if {@code move} may not start from this state
   */
  BranchState after(Move move, String branch) {
    if (!move.from.contains(this)) {
      throw new FatalTwoPhaseException(branch + " is " + this + ", so it cannot " + move.verb
          + " (only a branch that is " + names(move.from) + " can): a branch is begun, prepared, "
          + "then committed or rolled back, then released, each once and in that order. A bug in "
          + "the caller of the participant's branch");
    }
    return move.to;
  }

  private static String names(Set<BranchState> states) {
    StringBuilder b = new StringBuilder();
    int i = 0;
    for (BranchState s : states) {
      b.append(i == 0 ? "" : i == states.size() - 1 ? " or " : ", ").append(s);
      i++;
    }
    return b.toString();
  }
}
