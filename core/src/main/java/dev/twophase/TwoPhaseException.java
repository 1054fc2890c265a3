package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Root of twophase's exceptions. Unchecked, like Kafka's {@code KafkaException}. Subtypes say what
 * the caller can do: {@link RetriableTwoPhaseException} may succeed when tried again,
 * {@link FatalTwoPhaseException} needs a restart (close the coordinator and build a new one, which
 * recovers from the log) or an operator.
 *
 * <p>Where known, the exception carries the checkpoint id and the participant's name, and its
 * message names the handle.
 */
@PublicEvolving
public class TwoPhaseException extends RuntimeException {

  private static final long serialVersionUID = 1L;
  private static final long NONE = -1;

  private final long checkpointId;
  private final String participant;

  public TwoPhaseException(String message) {
    this(message, null, NONE, null);
  }

  public TwoPhaseException(String message, Throwable cause) {
    this(message, cause, NONE, null);
  }

  /**
   * @param checkpointId the checkpoint concerned, or a negative number if none
   * @param participant the participant concerned, or null
   */
  public TwoPhaseException(String message, Throwable cause, long checkpointId, String participant) {
    super(message, cause);
    this.checkpointId = checkpointId < 0 ? NONE : checkpointId;
    this.participant = participant;
  }

  /** The checkpoint this failure concerns, if any. */
  public OptionalLong checkpointId() {
    return checkpointId == NONE ? OptionalLong.empty() : OptionalLong.of(checkpointId);
  }

  /** The participant this failure concerns, if any. */
  public Optional<String> participant() {
    return Optional.ofNullable(participant);
  }
}
