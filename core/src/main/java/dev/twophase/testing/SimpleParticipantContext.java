package dev.twophase.testing;

import dev.twophase.ParticipantContext;
import java.util.Objects;

/** A plain {@link ParticipantContext}, for tests that call a participant directly. */
public record SimpleParticipantContext(String coordinatorId, String participantName, long ownerEpoch)
    implements ParticipantContext {

  public SimpleParticipantContext {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(participantName, "participantName");
  }
}
