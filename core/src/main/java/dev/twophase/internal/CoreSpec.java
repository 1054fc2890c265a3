package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.ApplicationState;
import dev.twophase.BeforeCheckpoint;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.Participant;
import dev.twophase.internal.CoordinatorEngine.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import dev.twophase.internal.engine.FrontEnd;
import org.slf4j.Logger;

/** What both coordinator builders collect; they differ only in how the core is then started. */
@Internal
public final class CoreSpec {

  private final String coordinatorId;
  private final List<Registration> participants = new ArrayList<>();
  private CoordinatorConfig config = CoordinatorConfig.ofDefaults();
  private CoordinatorListener listener;
  private ApplicationState<?> applicationState;
  private BeforeCheckpoint beforeCheckpoint;

  /** @throws IllegalArgumentException if the id is blank, not Unicode or over 255 UTF-8 bytes */
  public CoreSpec(String coordinatorId) {
    this.coordinatorId = CoordinatorIds.requireValid(coordinatorId);
  }

  public String coordinatorId() {
    return coordinatorId;
  }

  public void participant(String name, Participant<?, ?> participant) {
    CoordinatorIds.requireValid(name, "participant name");
    participants.add(new Registration(name, Objects.requireNonNull(participant, "participant")));
  }

  public void config(CoordinatorConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  public void listener(CoordinatorListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  public void applicationState(ApplicationState<?> applicationState) {
    this.applicationState = Objects.requireNonNull(applicationState, "applicationState");
  }

  public void beforeCheckpoint(BeforeCheckpoint hook) {
    this.beforeCheckpoint = Objects.requireNonNull(hook, "hook");
  }

  public CoordinatorConfig config() {
    return config;
  }

  /**
   * Validates the participants and makes the core, in state RECOVERING, logging to {@code log};
   * {@code advice} says in the front-end's terms what its messages tell the user to do.
   */
  public CoordinatorEngine newCore(FrontEnd.Advice advice, Logger log) {
    return new CoordinatorEngine(coordinatorId, participants, config, listener, applicationState, beforeCheckpoint,
        advice, log);
  }
}
