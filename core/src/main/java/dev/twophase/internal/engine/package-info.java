/**
 * The protocol engine's per-participant steps, shared by every front-end that drives participants:
 * the coordinators ({@code dev.twophase.Coordinator}, {@code dev.twophase.EmbeddedCoordinator}), the
 * Flink adapter's writer and committer, and the test contexts. Exported only to the adapter's module
 * (a qualified export); everything here may change in any release.
 *
 * <h2>Design</h2>
 *
 * <p>A front-end decides <em>when</em> the protocol's steps happen and <em>where</em> a decision is
 * made durable: a {@code StateLog} append, or another engine's checkpoint. What a step
 * <em>means</em> is decided here, once, so that the front-ends cannot disagree:
 *
 * <ul>
 *   <li>{@link Member} calls one participant and checks what it returns. A null handle, writer,
 *       committable, outcome or encoding is a broken participant: a
 *       {@link dev.twophase.FatalTwoPhaseException} naming the participant and the method. Any
 *       other exception of a step that may be tried again is a
 *       {@link dev.twophase.RetriableTwoPhaseException} carrying the front-end's advice.
 *   <li>{@link CommitRules} say what an outcome means: a lost transaction is an error unless it is
 *       older than its timeout and the user opted in; an unknown outcome stops unless the user opted
 *       in; a transaction found committed that no decision covers (a lost decision) stops the
 *       start-up unless the user opted in; warnings come before a timeout expires.
 *   <li>{@link Contexts} are the one implementation of the SPI's context objects.
 *   <li>{@link FrontEnd} is what the engine needs of its host: the names and advice its messages
 *       carry, the clock transactions are aged by, the fault injector, the listener and the logger.
 * </ul>
 *
 * <p>Threads: a {@link Member}'s current transaction belongs to the thread that writes (the
 * application or task thread); its commit, abort and retirement steps touch only the participant
 * and final fields, and may run on another thread.
 */
package dev.twophase.internal.engine;
