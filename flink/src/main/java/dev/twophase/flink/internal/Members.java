package dev.twophase.flink.internal;

import dev.twophase.CoordinatorListener;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.internal.engine.CommitRules;
import dev.twophase.internal.engine.FrontEnd;
import dev.twophase.internal.engine.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * How the sink's writer and committer take part in the engine: the {@link FrontEnd} each one is to
 * it, and their participants as the engine's {@link Member}s, made from the sink's factories.
 */
final class Members {

  private Members() {}

  /** The front-end a writer subtask (or, with {@code subtask} negative, the committer) is. */
  static FrontEnd frontEnd(SinkSpec spec, int subtask, Logger log) {
    String label = "sink '" + spec.sinkId() + "'" + (subtask >= 0 ? " subtask " + subtask : "");
    FaultInjector faults = spec.faults() == null ? FaultInjector.none() : spec.faults().get();
    if (faults == null) {
      throw new FatalTwoPhaseException("the fault injector supplier of sink '" + spec.sinkId() + "' returned null");
    }
    return new FrontEnd(spec.sinkId(), label,
        new FrontEnd.Advice(
            "the task fails and its next attempt tries again",
            "the restored checkpoint of sink '" + spec.sinkId() + "'",
            "a later checkpoint was committed and this is an older one (an older savepoint or retained checkpoint "
                + "was restored)",
            "Carrying on would write the records since the restored checkpoint a second time. Restore the latest "
                + "checkpoint instead, or, if duplicates are acceptable, build the sink with "
                + "continueAfterLostDecision()"),
        // Flink's committer may hold any number of decided checkpoints: unbounded.
        0, Optional.empty(), spec.transactionTimeout(),
        new CommitRules(spec.ignoreFailuresAfterTimeout(), -1, spec.continueAfterUnknownCommitOutcome(),
            spec.continueAfterLostDecision()),
        spec.clock(), faults, new CoordinatorListener() {}, log);
  }

  /**
   * Creates every participant of the sink and takes it into the engine; whatever fails, those
   * created are closed.
   *
   * @param writable whether each must be {@link dev.twophase.Writable} (the writer's)
   */
  @SuppressWarnings("unchecked")
  static List<Member<Object, Object>> create(SinkSpec spec, FrontEnd frontEnd, boolean writable) {
    List<Member<Object, Object>> members = new ArrayList<>();
    try {
      for (ParticipantSpec p : spec.participants()) {
        Participant<Object, Object> participant = (Participant<Object, Object>) p.factory().create();
        if (participant == null) {
          throw new FatalTwoPhaseException("the factory of participant '" + p.name() + "' returned null");
        }
        try {
          Member<Object, Object> member = new Member<>(members.size(), p.name(), participant, frontEnd);
          if (writable && !member.isWritable()) {
            throw new FatalTwoPhaseException("the factory of participant '" + p.name() + "' created "
                + participant.getClass().getName() + ", which is not Writable: a sink's participants take "
                + "its records through Writable.writerFor");
          }
          members.add(member);
        } catch (RuntimeException | Error e) {
          Resources.closeQuietly(participant, e);
          throw e;
        }
      }
      return members;
    } catch (RuntimeException | Error e) {
      Resources.throwErrors(Resources.closeAll(members, e));
      throw e;
    } catch (Exception e) {
      Resources.closeAll(members, e);
      throw new FatalTwoPhaseException("sink " + spec.sinkId() + ": a participant factory failed: " + e, e);
    }
  }
}
