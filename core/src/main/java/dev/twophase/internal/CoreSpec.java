package dev.twophase.internal;

import dev.twophase.ApplicationState;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.Participant;
import dev.twophase.internal.CoordinatorCore.Registration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What both coordinator builders collect; they differ only in how the core is then started. */
public final class CoreSpec {

  private final String coordinatorId;
  private final List<Registration> participants = new ArrayList<>();
  private CoordinatorConfig config = CoordinatorConfig.ofDefaults();
  private CoordinatorListener listener;
  private ApplicationState<?> applicationState;

  public CoreSpec(String coordinatorId) {
    this.coordinatorId = CoordinatorCore.requireId(coordinatorId);
  }

  public String coordinatorId() {
    return coordinatorId;
  }

  public void participant(String name, Participant<?, ?> participant) {
    Objects.requireNonNull(name, "participant name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("participant name must not be blank");
    }
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

  public CoordinatorConfig config() {
    return config;
  }

  /** Validates the participants and makes the core, in state RECOVERING. */
  public CoordinatorCore newCore() {
    return new CoordinatorCore(coordinatorId, participants, config, listener, applicationState);
  }
}
