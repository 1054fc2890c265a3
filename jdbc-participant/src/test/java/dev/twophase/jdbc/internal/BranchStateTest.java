package dev.twophase.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.jdbc.internal.BranchState.Move;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The branch's states and moves, the same for every dialect's branch. */
class BranchStateTest {

  @Test
  void theProtocolsPathsAreAllowed() {
    assertEquals(BranchState.PREPARED, BranchState.ACTIVE.after(Move.PREPARE, "b"));
    assertEquals(BranchState.FINISHED, BranchState.PREPARED.after(Move.COMMIT, "b"));
    assertEquals(BranchState.FINISHED, BranchState.PREPARED.after(Move.ROLL_BACK, "b"));
    assertEquals(BranchState.FINISHED, BranchState.ACTIVE.after(Move.ROLL_BACK, "b"));
    assertEquals(BranchState.FINISHED, BranchState.ACTIVE.after(Move.PREPARE_READ_ONLY, "b"));
    for (BranchState s : EnumSet.of(BranchState.ACTIVE, BranchState.PREPARED, BranchState.FINISHED)) {
      assertEquals(BranchState.RELEASED, s.after(Move.RELEASE, "b"));
    }
  }

  @Test
  void everyOtherMoveIsRefusedWithWhatWouldHaveBeenRight() {
    Map<Move, Set<BranchState>> allowed = Map.of(
        Move.PREPARE, EnumSet.of(BranchState.ACTIVE),
        Move.PREPARE_READ_ONLY, EnumSet.of(BranchState.ACTIVE),
        Move.COMMIT, EnumSet.of(BranchState.PREPARED),
        Move.ROLL_BACK, EnumSet.of(BranchState.ACTIVE, BranchState.PREPARED),
        Move.RELEASE, EnumSet.of(BranchState.ACTIVE, BranchState.PREPARED, BranchState.FINISHED));
    int refused = 0;
    for (Move move : Move.values()) {
      for (BranchState s : EnumSet.complementOf(EnumSet.copyOf(allowed.get(move)))) {
        FatalTwoPhaseException e = assertThrows(FatalTwoPhaseException.class,
            () -> s.after(move, "H2 transaction t-1-2"));
        assertTrue(e.getMessage().startsWith("H2 transaction t-1-2 is " + s + ", so it cannot "), e.getMessage());
        assertTrue(e.getMessage().contains("begun, prepared, then committed or rolled back, then released"),
            e.getMessage());
        refused++;
      }
    }
    assertEquals(12, refused);
    FatalTwoPhaseException commit = assertThrows(FatalTwoPhaseException.class,
        () -> BranchState.ACTIVE.after(Move.COMMIT, "b"));
    assertTrue(commit.getMessage().contains("only a branch that is PREPARED can"), commit.getMessage());
    FatalTwoPhaseException rollBack = assertThrows(FatalTwoPhaseException.class,
        () -> BranchState.FINISHED.after(Move.ROLL_BACK, "b"));
    assertTrue(rollBack.getMessage().contains("only a branch that is ACTIVE or PREPARED can"), rollBack.getMessage());
  }
}
