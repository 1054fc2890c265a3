package dev.twophase.testkit;

import dev.twophase.annotation.PublicEvolving;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One simulated operating-system process in an in-JVM test: it owns what a real process would lose
 * if it were killed with {@code kill -9}, so that a test can "kill" a participant without a
 * test-only method in the participant.
 *
 * <p>The participant under test takes its resources from factories (a {@code DataSource}, a
 * producer factory, a function that opens files). The test hands it factories that register
 * every resource they create here, with what the operating system would do to that resource when
 * the process dies:
 *
 * <pre>{@code
 * protected Participant<MyHandle, Void> newParticipant(SimulatedProcess process) {
 *   return MyParticipant.builder()
 *       // a killed process's connection is dropped: the server rolls back what it had open
 *       .connections(() -> process.track(dataSource.getConnection(), c -> c.abort(Runnable::run)))
 *       // a killed process's producer just goes away: no abort, no flush
 *       .producers(id -> process.track(new KafkaProducer<>(props(id)), p -> p.close(Duration.ZERO)))
 *       .build();
 * }
 * }</pre>
 *
 * {@link #kill()} then does to every tracked resource what its kill action says, in the reverse
 * order of registration, and never calls the participant: no {@code abort}, no {@code close}. The
 * participant instance is never used again; a new instance, in a new simulated process, recovers.
 *
 * <p>A process that ends normally ({@link #exit()}), after its participant was closed, also runs the
 * kill actions of what it still tracks, as the operating system reclaims what a process leaves
 * behind when it exits; kill actions must therefore tolerate a resource that the participant has
 * already closed (closing twice is harmless for connections, channels and producers).
 *
 * <p>Thread-safe: the participant may create resources on any thread (the committer thread of a
 * coordinator, for example).
 */
@PublicEvolving
public final class SimulatedProcess {

  /** What the operating system does to a resource of a process that dies or exits. */
  @FunctionalInterface
  public interface Kill<R> {
    /** Releases {@code resource} as a dead process's would be: without any orderly shutdown. */
    void kill(R resource) throws Exception;
  }

  /** An action run when the process dies or exits. */
  @FunctionalInterface
  public interface Action {
    /** Runs the action. */
    void run() throws Exception;
  }

  private enum State { RUNNING, KILLED, EXITED }

  private final String name;
  private final List<Action> actions = new ArrayList<>();
  private State state = State.RUNNING;

  /** A running process called {@code name} (for messages), tracking nothing yet. */
  public SimulatedProcess(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  /** The name given at creation, used in messages. */
  public String name() {
    return name;
  }

  /**
   * Registers {@code resource}, created in this process, and what its death does to it; returns
   * {@code resource}, so that a factory can wrap its {@code return}.
   *
   * @throws IllegalStateException if the process was killed or exited: a dead process creates
   *     nothing (the participant was used after its process died)
   */
  public <R> R track(R resource, Kill<? super R> kill) {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(kill, "kill");
    onKill(() -> kill.kill(resource));
    return resource;
  }

  /**
   * Registers an action to run when the process dies or exits, such as closing a socket that no
   * factory hands out.
   *
   * @return this process
   * @throws IllegalStateException if the process was killed or exited
   */
  public synchronized SimulatedProcess onKill(Action action) {
    Objects.requireNonNull(action, "action");
    if (state != State.RUNNING) {
      throw new IllegalStateException(name + " was " + state.name().toLowerCase(Locale.ROOT)
          + ": the participant created a resource after its process died; a test must not use a "
          + "participant instance after killing its process");
    }
    actions.add(action);
    return this;
  }

  /** Whether {@link #kill()} was called. */
  public synchronized boolean isKilled() {
    return state == State.KILLED;
  }

  /** Whether the process is still running (neither killed nor exited). */
  public synchronized boolean isRunning() {
    return state == State.RUNNING;
  }

  /**
   * Kills the process, as {@code kill -9} would: runs every registered kill action, newest first.
   * Idempotent; a process that exited is not killed again.
   *
   * @throws Exception the first failing kill action's exception (the others' are suppressed);
   *     every action runs regardless
   */
  public void kill() throws Exception {
    end(State.KILLED);
  }

  /**
   * Ends the process normally, after its participant was closed: runs the kill actions of what it
   * still tracks, as the operating system reclaims what an exiting process leaves open.
   * Idempotent; a killed process is not ended again.
   *
   * @throws Exception the first failing action's exception (the others' are suppressed)
   */
  public void exit() throws Exception {
    end(State.EXITED);
  }

  private void end(State to) throws Exception {
    List<Action> toRun;
    synchronized (this) {
      if (state != State.RUNNING) {
        return;
      }
      state = to;
      toRun = new ArrayList<>(actions);
      actions.clear();
    }
    Exception failure = null;
    for (int i = toRun.size() - 1; i >= 0; i--) {
      try {
        toRun.get(i).run();
      } catch (Exception e) {
        if (failure == null) {
          failure = new Exception("a kill action registered with " + name + " failed: " + e, e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public synchronized String toString() {
    return "SimulatedProcess{" + name + ", " + state + ", " + actions.size() + " tracked}";
  }
}
