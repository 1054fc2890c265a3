package dev.twophase.testkit.statelog;

import dev.twophase.annotation.PublicEvolving;

/** How a log under {@link StateLogConformanceSuite} is owned, which decides what the suite checks. */
@PublicEvolving
public enum Ownership {
  /**
   * The log is owned as a whole by one process at a time (a directory lock, say): a second
   * process is refused while the first lives, and fences nothing; after the first is gone, the
   * next owner has a higher epoch. The refusal may be any {@link dev.twophase.TwoPhaseException}
   * ({@link dev.twophase.FencedException} for {@link dev.twophase.FileStateLog}).
   */
  WHOLE_LOG,
  /**
   * The log is shared by processes and each coordinator is claimed on its own: a claim fences
   * the coordinator's previous owner in any process, and is refused while that owner holds it
   * unless the new owner takes coordinators over.
   */
  PER_COORDINATOR,
  /**
   * The log is owned as a whole, and a new owner is never refused: opening it fences the previous
   * owner in every coordinator, whether or not that owner closed anything, as {@link
   * dev.twophase.testing.InMemoryStateLog#reopen()} does. {@code takeOver} makes no difference.
   */
  WHOLE_LOG_FENCED_BY_NEXT_OWNER
}
