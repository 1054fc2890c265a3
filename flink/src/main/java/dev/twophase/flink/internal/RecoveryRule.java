package dev.twophase.flink.internal;

import dev.twophase.TransactionNames;

/**
 * Which transaction names of one lineage a restored writer may abort. The state of a lineage says
 * that its incarnation {@code stateEpoch} had pre-committed every transaction below
 * {@code nextSequence} when the checkpoint was taken: those are committed, or pending in Flink's
 * committer, which commits them (in any task, maybe after this writer started), so they are never
 * touched. Everything else of the lineage is undecided and is aborted:
 * <ul>
 *   <li>transactions of {@code stateEpoch} from {@code nextSequence} on: open at the checkpoint, or
 *       begun after it;
 *   <li>transactions of any higher epoch: attempts that restored this state (or an older one) and
 *       failed; their checkpoints, if any completed, are not the one being restored.
 * </ul>
 * Lower epochs are left alone: the incarnation {@code stateEpoch} cleaned them up when it started,
 * and what they pre-committed may still be pending in the committer. A fresh lineage uses epoch 0
 * and sequence 0: all of it is undecided. The restoring incarnation's own epoch never matches.
 */
record RecoveryRule(String prefix, long stateEpoch, long nextSequence, long ownEpoch) {

  /** Whether {@code name} is a transaction of this lineage that recovery must abort. */
  boolean abortable(String name) {
    if (!TransactionNames.isOwn(prefix, name)) {
      return false;
    }
    String suffix = name.substring(prefix.length());
    int dash = suffix.indexOf('-');
    long epoch;
    long sequence;
    try {
      epoch = Long.parseLong(suffix.substring(0, dash));
      sequence = Long.parseLong(suffix.substring(dash + 1));
    } catch (NumberFormatException tooLong) {
      return false; // not a number this sink could have written
    }
    if (epoch == ownEpoch) {
      return false;
    }
    return epoch > stateEpoch || (epoch == stateEpoch && sequence >= nextSequence);
  }
}
