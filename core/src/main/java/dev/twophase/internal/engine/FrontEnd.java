package dev.twophase.internal.engine;

import dev.twophase.CoordinatorListener;
import dev.twophase.FaultInjector;
import dev.twophase.ProtocolPoint;
import dev.twophase.annotation.Internal;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * What the engine needs to know of the front-end that drives it.
 *
 * @param coordinatorId the coordinator id in contexts and transaction names (a sink's id, for the
 *     Flink adapter)
 * @param label how messages name the front-end: {@code coordinator 'orders'}, {@code sink 'out'
 *     subtask 2}
 * @param advice what messages tell the user to do, in the front-end's terms
 * @param maxPendingCheckpoints for the contexts; 0 if unbounded
 * @param checkpointInterval for the contexts
 * @param defaultTimeout the transaction timeout of a participant that has none of its own, or null
 * @param rules what commit outcomes and lost decisions mean
 * @param clock the wall clock transactions are aged by
 * @param faults told of every {@link ProtocolPoint} the engine reaches
 * @param listener told of timeout warnings; never throws (wrap it first)
 * @param log where the engine logs, the front-end's logger
 */
@Internal
public record FrontEnd(
    String coordinatorId,
    String label,
    Advice advice,
    int maxPendingCheckpoints,
    Optional<Duration> checkpointInterval,
    Duration defaultTimeout,
    CommitRules rules,
    Clock clock,
    FaultInjector faults,
    CoordinatorListener listener,
    Logger log) {

  public FrontEnd {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(advice, "advice");
    Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    Objects.requireNonNull(rules, "rules");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(faults, "faults");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(log, "log");
  }

  /**
   * What messages say, in the front-end's terms.
   *
   * @param retry what a retriable failure of a start-up or recovery step tells the user to do:
   *     {@code build the coordinator again to retry}, {@code the task fails and its next attempt
   *     tries again}
   * @param decisionSource where the decisions are kept: {@code the state log of coordinator
   *     'orders'}, {@code the restored checkpoint of sink 'out'}
   * @param lostDecisionCause the likely causes of a transaction found committed that no decision
   *     covers
   * @param lostDecisionRemedy what to do about it, naming the option that carries on
   */
  public record Advice(String retry, String decisionSource, String lostDecisionCause, String lostDecisionRemedy) {

    public Advice {
      Objects.requireNonNull(retry, "retry");
      Objects.requireNonNull(decisionSource, "decisionSource");
      Objects.requireNonNull(lostDecisionCause, "lostDecisionCause");
      Objects.requireNonNull(lostDecisionRemedy, "lostDecisionRemedy");
    }
  }

  /** Tells the fault injector that {@code point} is reached; whatever it throws is rethrown. */
  public void reached(ProtocolPoint point) {
    faults.reached(point.name());
  }
}
