/**
 * The crash harness: {@link dev.twophase.testkit.crash.CrashTest} crashes a participant in child
 * JVMs, at the coordinator's protocol points and at the participant's own points, recovers it in
 * new ones, and judges from what the resource shows that no record is lost, none is visible twice,
 * nothing is left open, and that each recovery shows exactly what the restored position says. The
 * participant author writes a {@link dev.twophase.testkit.crash.CrashSubject}; scenarios are
 * {@link dev.twophase.testkit.crash.CrashScenario}s of {@link dev.twophase.testkit.crash.Crash}es;
 * what is wrong comes as {@link dev.twophase.testkit.crash.CrashFinding}s in a
 * {@link dev.twophase.testkit.crash.CrashTestFailure}. See {@code docs/testing-a-participant.md}.
 */
package dev.twophase.testkit.crash;
