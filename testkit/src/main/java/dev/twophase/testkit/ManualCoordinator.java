package dev.twophase.testkit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.twophase.Codec;
import dev.twophase.Participant;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.testing.TestContexts;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Plays the coordinator by hand for one coordinator id and one participant name, so that a test
 * can drive a participant through exactly the calls a coordinator makes, across simulated process
 * restarts, without a state log. This is what {@link ParticipantConformanceSuite} is built on; use
 * it for checks of your own.
 *
 * <p>Each {@link Incarnation} is one participant instance in its own {@link SimulatedProcess},
 * made by the {@link ProcessParticipantFactory}. Like the real coordinator, this class
 * <ul>
 *   <li>gives every incarnation the next owner epoch (1, 2, ...);
 *   <li>asks the first incarnation for its user context ({@code initializeUserContext}), keeps it
 *       encoded through the participant's context codec, and gives later incarnations the decoded
 *       copy, as the state log would;
 *   <li>numbers checkpoints for all incarnations, so that no checkpoint id is given twice, and
 *       makes transaction contexts with {@link TestContexts} on log {@link TestContexts#LOG_ID},
 *       whose names are exactly the coordinator's.
 * </ul>
 * Handles pass from one incarnation to the next only through {@link Incarnation#log} and
 * {@link Incarnation#restore}, that is through the participant's codec.
 *
 * <pre>{@code
 * ManualCoordinator<MyHandle, Void> coordinator =
 *     new ManualCoordinator<>("orders", "db", process -> newParticipant(process));
 * Incarnation<MyHandle, Void> first = coordinator.start();
 * MyHandle txn = first.begin();
 * first.write(txn, "a");
 * txn = first.preCommit(txn);
 * LoggedHandle<MyHandle> logged = first.log(txn);   // the decision
 * first.kill();                                     // kill -9, before the commit
 *
 * Incarnation<MyHandle, Void> second = coordinator.newIncarnation();
 * MyHandle restored = second.restore(logged);
 * assertEquals(CommitOutcome.COMMITTED, second.recoverAndCommit(restored));
 * second.finishRecovery(List.of(restored));
 * coordinator.close();
 * }</pre>
 *
 * <p>Not thread-safe, except for the calls {@link Incarnation} documents as such.
 *
 * @param <TXN> the participant's handle type
 * @param <CONTEXT> the participant's user context type ({@link Void} if none)
 */
@PublicEvolving
public final class ManualCoordinator<TXN, CONTEXT> implements AutoCloseable {

  private final String coordinatorId;
  private final String participantName;
  private final ProcessParticipantFactory<TXN, CONTEXT> factory;
  private final List<Incarnation<TXN, CONTEXT>> incarnations = new ArrayList<>();
  private byte[] loggedContext;
  private int loggedContextVersion;
  private long nextCheckpointId = 1;

  /**
   * A coordinator {@code coordinatorId} whose participant {@code participantName} is made by
   * {@code factory}. Nothing is started yet.
   */
  public ManualCoordinator(
      String coordinatorId, String participantName, ProcessParticipantFactory<TXN, CONTEXT> factory) {
    this.coordinatorId = Objects.requireNonNull(coordinatorId, "coordinatorId");
    this.participantName = Objects.requireNonNull(participantName, "participantName");
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  /** The coordinator id in every context. */
  public String coordinatorId() {
    return coordinatorId;
  }

  /** The participant name in every context. */
  public String participantName() {
    return participantName;
  }

  /**
   * A new incarnation that had nothing to recover: a first start, or a restart whose log named no
   * handle. Its recovery is already finished ({@code finishRecoveringContext} with no handled
   * transactions), so it can begin transactions at once.
   */
  public Incarnation<TXN, CONTEXT> start() throws Exception {
    Incarnation<TXN, CONTEXT> incarnation = newIncarnation();
    incarnation.finishRecovery(List.of());
    return incarnation;
  }

  /**
   * A new incarnation, recovering: a new {@link SimulatedProcess}, a new participant instance from
   * the factory, the next owner epoch and the user context as the log would hold it. The caller
   * restores handles, commits or aborts them, and then calls {@link Incarnation#finishRecovery},
   * before the first {@link Incarnation#begin}, as the coordinator does.
   */
  public Incarnation<TXN, CONTEXT> newIncarnation() throws Exception {
    long epoch = incarnations.size() + 1L;
    SimulatedProcess process =
        new SimulatedProcess("process " + epoch + " of coordinator '" + coordinatorId + "', participant '"
            + participantName + "'");
    Participant<TXN, CONTEXT> participant = factory.newParticipant(process);
    assertNotNull(participant, "newParticipant(process) returned null");
    Optional<CONTEXT> userContext;
    if (loggedContext == null && incarnations.isEmpty()) {
      userContext = participant.initializeUserContext(
          TestContexts.participant(coordinatorId, participantName, TestContexts.LOG_ID, epoch));
      assertNotNull(userContext, "initializeUserContext returned null instead of Optional.empty()");
      if (userContext.isPresent()) {
        Codec<CONTEXT> codec = participant.contextCodec();
        byte[] bytes = codec.encode(userContext.get());
        assertNotNull(bytes, "contextCodec().encode returned null");
        loggedContext = bytes.clone();
        loggedContextVersion = codec.version();
      }
    } else if (loggedContext == null) {
      userContext = Optional.empty(); // restored: a participant restored with no context keeps none
    } else {
      userContext = Optional.ofNullable(
          participant.contextCodec().decode(loggedContext.clone(), loggedContextVersion));
    }
    Incarnation<TXN, CONTEXT> incarnation = new Incarnation<>(this, participant, process, epoch, userContext);
    incarnations.add(incarnation);
    return incarnation;
  }

  /** Every incarnation made so far, oldest first. */
  public List<Incarnation<TXN, CONTEXT>> incarnations() {
    return List.copyOf(incarnations);
  }

  /** The highest checkpoint id given to a transaction so far (0 if none). */
  public synchronized long lastCheckpointId() {
    return nextCheckpointId - 1;
  }

  synchronized long nextCheckpointId() {
    return nextCheckpointId++;
  }

  /**
   * Ends every incarnation that was neither killed nor closed, as a clean shutdown would: aborts
   * its unfinished transactions (failures ignored: the test is over), closes its participant and
   * ends its process. Every incarnation is ended even if one fails.
   *
   * @throws IllegalStateException if a participant's {@code close()} or a process's exit failed;
   *     its cause is the first failure, the others are suppressed
   */
  @Override
  public void close() {
    Exception failure = null;
    for (Incarnation<TXN, CONTEXT> incarnation : incarnations) {
      try {
        incarnation.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure != null) {
      throw new IllegalStateException("closing an incarnation of " + this + " failed: " + failure, failure);
    }
  }

  @Override
  public String toString() {
    return "ManualCoordinator{" + coordinatorId + "/" + participantName + ", " + incarnations.size()
        + " incarnation(s)}";
  }
}
