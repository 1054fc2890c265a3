package dev.twophase.testkit.statelog;

import dev.twophase.annotation.PublicEvolving;

/** How a log under {@link StateLogConformanceSuite} is owned, which decides what the suite checks. */
@PublicEvolving
public enum Ownership {
  /**
   * The log is owned as a whole by one process at a time (a directory lock, say): a second
   * process is refused while the first lives, and fences nothing; after the first is gone, the
   * next owner has a higher epoch.
   */
  WHOLE_LOG,
  /**
   * The log is shared by processes and each coordinator is claimed on its own: a claim fences
   * the coordinator's previous owner in any process, and is refused while that owner holds it
   * unless the new owner takes coordinators over.
   */
  PER_COORDINATOR
}
