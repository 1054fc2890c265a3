package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.FaultInjector;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Everything a {@code TwoPhaseSink} is configured with, shipped to the task managers by Java
 * serialization (configuration only).
 *
 * @param sinkId                    the sink's id: the first part of every transaction name
 * @param participants              the participants, in registration order (commit order)
 * @param transactionTimeout        the timeout of participants that declare none, or null
 * @param ignoreFailuresAfterTimeout drop (with an ERROR) a lost transaction older than its timeout
 * @param continueAfterLostDecision  carry on (with an ERROR) when recovery finds committed a
 *                                  transaction it was to abort
 * @param continueAfterUnknownCommitOutcome take as done (with an ERROR) a decided transaction whose
 *                                  participant cannot tell whether it committed
 * @param clock                     the wall clock transactions are aged by
 * @param faults                    makes the fault injector of each writer and committer, or null
 */
@Internal
public record SinkSpec(
    String sinkId,
    List<ParticipantSpec> participants,
    Duration transactionTimeout,
    boolean ignoreFailuresAfterTimeout,
    boolean continueAfterLostDecision,
    boolean continueAfterUnknownCommitOutcome,
    Clock clock,
    SerializableSupplier<FaultInjector> faults) implements Serializable {

  private static final long serialVersionUID = 1L;

  public SinkSpec {
    Objects.requireNonNull(sinkId, "sinkId");
    participants = List.copyOf(participants);
    Objects.requireNonNull(clock, "clock");
  }

  /** The names of the participants, in registration order. */
  public List<String> participantNames() {
    return participants.stream().map(ParticipantSpec::name).toList();
  }
}
