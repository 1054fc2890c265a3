/**
 * twophase's testkit: the conformance suite, the restart check and the crash harness for
 * participants, used from a participant's own tests.
 */
module dev.twophase.testkit {
  requires transitive dev.twophase.core;
  requires transitive org.junit.jupiter.api;

  exports dev.twophase.testkit;
  exports dev.twophase.testkit.crash;
  exports dev.twophase.testkit.statelog;
}
