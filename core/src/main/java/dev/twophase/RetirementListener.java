package dev.twophase;

import dev.twophase.annotation.Experimental;
import java.util.List;

/**
 * Optional capability of a {@link Participant}: it is told when handles can no longer be committed
 * again, so that it can delete what it keeps only to answer a repeated commit (the marker row that
 * tells {@link CommitOutcome#ALREADY_COMMITTED} from {@link CommitOutcome#LOST}, say).
 *
 * <p>A handle may be committed again as long as the state log holds it as pending: after a crash
 * between its commit and the completion mark, recovery calls {@code recoverAndCommit} on it. It is
 * retired once a later state record that no longer holds it is durable. Only the self-driving
 * {@link Coordinator} calls these methods, on its committer thread, after the fact. An
 * {@link EmbeddedCoordinator} never does: the engine that drives it may restore any checkpoint it
 * still holds.
 *
 * <p>Both calls are hints for clean-up, never part of the protocol: at most once per handle, maybe
 * never (a crash in between), in no particular batch size. What they fail to deliver is covered by
 * {@link #onEarlierIncarnationsRetired} at the next start. A failure is logged at WARN and changes
 * nothing else.
 *
 * @param <TXN> the participant's transaction handle
 */
@Experimental
public interface RetirementListener<TXN> {

  /**
   * These handles, returned by {@link Participant#preCommit} and committed, will never be passed
   * to {@code commit} or {@code recoverAndCommit} again. Called on the committer thread, between
   * two commits: keep it cheap (batch durable work, such as deleting marker rows, rather than doing
   * it per call), since it delays the next commit.
   */
  void onRetired(List<TXN> transactions) throws Exception;

  /**
   * Called once per start, after the start-up record is durable: no transaction that an earlier
   * incarnation of this coordinator's participant began (its name has this participant's
   * {@link ParticipantContext#transactionNamePrefix()} and an owner epoch lower than
   * {@code context.ownerEpoch()}) will be committed again. Default: nothing.
   */
  default void onEarlierIncarnationsRetired(ParticipantContext context) throws Exception {}
}
