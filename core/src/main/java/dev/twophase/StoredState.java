package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Arrays;

/**
 * One coordinator state record as the log holds it: the checkpoint id it belongs to and the
 * coordinator's encoded state. The log does not interpret the payload.
 */
@PublicEvolving
public final class StoredState {

  private final long checkpointId;
  private final byte[] payload;

  public StoredState(long checkpointId, byte[] payload) {
    if (checkpointId < 0) {
      throw new IllegalArgumentException("checkpointId must be >= 0, was " + checkpointId);
    }
    this.checkpointId = checkpointId;
    this.payload = payload.clone();
  }

  public long checkpointId() {
    return checkpointId;
  }

  /** A copy of the payload. */
  public byte[] payload() {
    return payload.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredState storedState
        && storedState.checkpointId == checkpointId
        && Arrays.equals(storedState.payload, payload);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(checkpointId) * 31 + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "StoredState{checkpointId=" + checkpointId + ", payload=" + payload.length + " bytes}";
  }
}
