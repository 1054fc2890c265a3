/**
 * Testing tools for {@link dev.twophase.Participant} implementations, in one JVM: the conformance
 * suite every participant should pass ({@link dev.twophase.testkit.ParticipantConformanceSuite}), and
 * the helpers it is built on, for checks of one's own: {@link dev.twophase.testkit.ManualCoordinator}
 * plays the coordinator by hand, an {@link dev.twophase.testkit.Incarnation} is one participant
 * instance in a {@link dev.twophase.testkit.SimulatedProcess}, and handles travel between
 * incarnations only as {@link dev.twophase.testkit.LoggedHandle}s, through the participant's codec.
 * The crash harness, which runs participants in child JVMs, is in {@code dev.twophase.testkit.crash}.
 * See {@code docs/testing-a-participant.md}.
 */
package dev.twophase.testkit;
