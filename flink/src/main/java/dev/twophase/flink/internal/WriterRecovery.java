package dev.twophase.flink.internal;

import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.TransactionNames;
import dev.twophase.internal.engine.FrontEnd;
import dev.twophase.internal.engine.Member;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer subtask's start, in the order the coordinators recover:
 * <ol>
 *   <li>{@code startRecovery} of every lineage's prefix (the fresh one if none is restored), so that
 *       a participant claims the names before anything of them is touched;
 *   <li>contexts back from the writer state;
 *   <li>lineage by lineage and in participant order, the state's pending handles (pre-committed
 *       and not yet retired: what the restored checkpoint's committables may hold) committed with
 *       {@code recoverAndCommit}. The checkpoint completed, so they are decided; Flink's chained
 *       committer committed them already before the writer started, and a second commit is a
 *       no-op by the SPI's contract. What it buys is that the participant learns of them before it
 *       begins anything: the Kafka participant keeps their transactional ids out of its pool until
 *       the writer's earlier incarnations are retired, so that no attempt reuses an id that a later
 *       restore of the same checkpoint must find as it was;
 *   <li>the transactions the state holds as open aborted with {@code recoverAndAbort} (what it
 *       finds committed proves a lost decision);
 *   <li>{@code finishRecoveringContext} for every lineage, so that each participant aborts what the
 *       state cannot name: transactions begun after the checkpoint, or by attempts that failed
 *       before their first checkpoint (Flink's lingering transactions). Other pre-committed
 *       transactions are never aborted: they are names the {@link RecoveryRule} keeps.
 * </ol>
 *
 * <p>Idempotent: a failure anywhere fails the task, and the next attempt runs the same steps again.
 */
final class WriterRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(WriterRecovery.class);

  private final SinkSpec spec;
  private final FrontEnd frontEnd;
  private final List<Member<Object, Object>> members;
  private final long epoch;
  private final long restoredCheckpointId;
  private final int subtask;

  WriterRecovery(SinkSpec spec, FrontEnd frontEnd, List<Member<Object, Object>> members, long epoch,
      long restoredCheckpointId, int subtask) {
    this.spec = spec;
    this.frontEnd = frontEnd;
    this.members = members;
    this.epoch = epoch;
    this.restoredCheckpointId = restoredCheckpointId;
    this.subtask = subtask;
  }

  /** How to remove a participant from a sink, for the messages that refuse a state naming one. */
  static final String REMOVING = "To remove a participant, stop the job with a savepoint (which commits everything) "
      + "and restore that savepoint with the sink under a new uid, allowing non-restored state: the sources go on "
      + "from the savepoint, the sink starts without state";

  /**
   * The restored states in the order recovery handles them (by lineage id, so the first, which the
   * subtask continues, does not depend on the order Flink hands them over), after checking that
   * they belong to this sink and name only participants it has.
   */
  static List<LineageState> check(SinkSpec spec, Iterable<LineageState> restored) {
    List<LineageState> states = new ArrayList<>();
    Set<String> lineages = new HashSet<>();
    for (LineageState s : restored) {
      if (!s.sinkId().equals(spec.sinkId())) {
        throw new FatalTwoPhaseException("the restored writer state belongs to sink '" + s.sinkId()
            + "', not to '" + spec.sinkId() + "': a sink id is part of every transaction name, so a sink "
            + "cannot recover another's transactions. Restore with the sink id the state was written with");
      }
      for (ParticipantState p : s.participants()) {
        if (!spec.participantNames().contains(p.participant())) {
          throw new FatalTwoPhaseException("the restored writer state of sink '" + spec.sinkId() + "' holds "
              + "participant '" + p.participant() + "', which the sink does not have (it has "
              + spec.participantNames() + "); its transactions may be pending. Add it again, with the same "
              + "name, to recover them. " + REMOVING);
        }
      }
      if (lineages.add(s.lineage())) {
        states.add(s);
      }
    }
    states.sort(Comparator.comparing(LineageState::lineage));
    return states;
  }

  /** Runs recovery; {@code states} as {@link #check} returned them. */
  void run(List<LineageState> states) {
    LineageState continued = states.isEmpty() ? null : states.get(0);
    for (Member<Object, Object> member : members) {
      if (continued == null) {
        member.startRecovery(member.context());
      }
      for (LineageState state : states) {
        member.startRecovery(member.context().withPrefix(prefix(member, state)));
      }
    }
    restoreContexts(continued);
    List<List<List<Object>>> handled = new ArrayList<>();
    for (LineageState state : states) {
      handled.add(commitPending(state));
    }
    for (int l = 0; l < states.size(); l++) {
      List<List<Object>> aborted = abortOpen(states.get(l));
      for (int i = 0; i < members.size(); i++) {
        handled.get(l).get(i).addAll(aborted.get(i));
      }
    }
    for (int l = 0; l < states.size(); l++) {
      LineageState state = states.get(l);
      for (int i = 0; i < members.size(); i++) {
        Member<Object, Object> member = members.get(i);
        String prefix = prefix(member, state);
        Optional<Object> context = l == 0 // the continued lineage: its context is restored already
            ? member.userContext() : contextOf(member, state.participant(member.name()));
        RecoveryRule rule = new RecoveryRule(prefix, state.epoch(), state.nextSequence(), epoch);
        member.finishRecovering(member.context().withPrefix(prefix), handled.get(l).get(i), restoredCheckpointId,
            context, rule::abortable);
      }
    }
    if (continued == null) {
      // A fresh lineage: attempts that started it before and failed before their first checkpoint
      // left transactions no state names.
      for (Member<Object, Object> member : members) {
        String prefix = member.context().transactionNamePrefix();
        member.finishRecovering(member.context(), List.of(), restoredCheckpointId, member.userContext(),
            new RecoveryRule(prefix, 0, 0, epoch)::abortable);
      }
    }
    LOG.info("sink {} subtask {}: recovered {} lineage(s) {} of checkpoint {}; epoch {}", spec.sinkId(), subtask,
        states.size(), states.stream().map(LineageState::lineage).toList(), restoredCheckpointId, epoch);
  }

  private String prefix(Member<Object, Object> member, LineageState state) {
    return TransactionNames.prefix(spec.sinkId(), member.name(), state.lineage());
  }

  private String where(LineageState state) {
    return "the restored writer state of sink '" + spec.sinkId() + "' (checkpoint " + restoredCheckpointId
        + ", lineage " + state.lineage() + ")";
  }

  private void restoreContexts(LineageState continued) {
    for (Member<Object, Object> member : members) {
      ParticipantState p = continued == null ? null : continued.participant(member.name());
      if (p != null) {
        // As in the coordinators: a restored participant keeps its (possibly empty) context.
        member.restoreUserContext(p.context(), p.contextCodecVersion(), where(continued));
      } else {
        member.initializeUserContext();
      }
    }
  }

  private Optional<Object> contextOf(Member<Object, Object> member, ParticipantState p) {
    if (p == null || p.context() == null) {
      return Optional.empty();
    }
    return Optional.of(member.decodeUserContext(p.context(), p.contextCodecVersion(), "a restored writer state"));
  }

  /** Commits the lineage's pending handles; returns, per member, the handles it handled. */
  private List<List<Object>> commitPending(LineageState state) {
    List<List<Object>> handled = new ArrayList<>();
    for (Member<Object, Object> member : members) {
      List<Object> mine = new ArrayList<>();
      handled.add(mine);
      ParticipantState p = state.participant(member.name());
      if (p == null) {
        continue;
      }
      for (EncodedHandle h : p.pending()) {
        Object handle = member.decode(h.bytes(), h.codecVersion(), where(state));
        Member.Committed outcome;
        try {
          outcome = member.commit(handle, restoredCheckpointId, h.begunAtMillis(), Member.CommitCall.RECOVERY);
        } catch (CommitOutcomeUnknownException e) {
          throw UnknownOutcomes.failure(spec, member.name(), handle, restoredCheckpointId, e);
        }
        LOG.debug("sink {} subtask {}: {} of participant {} (pending in checkpoint {}): {}", spec.sinkId(), subtask,
            handle, member.name(), restoredCheckpointId, outcome);
        mine.add(handle);
        frontEnd.reached(ProtocolPoint.DURING_RECOVERY_COMMIT);
      }
    }
    return handled;
  }

  /** Aborts the lineage's open transactions; returns, per member, the handles it handled. */
  private List<List<Object>> abortOpen(LineageState state) {
    List<List<Object>> handled = new ArrayList<>();
    for (Member<Object, Object> member : members) {
      List<Object> mine = new ArrayList<>(1);
      handled.add(mine);
      ParticipantState p = state.participant(member.name());
      if (p == null || p.open() == null) {
        continue;
      }
      Object handle = member.decode(p.open().bytes(), p.open().codecVersion(), where(state));
      AbortOutcome outcome = member.recoverAndAbort(handle, restoredCheckpointId, restoredCheckpointId);
      LOG.info("sink {} subtask {}: {} of participant {} (open in checkpoint {}): {}", spec.sinkId(), subtask,
          handle, member.name(), restoredCheckpointId, outcome);
      mine.add(handle);
    }
    return handled;
  }
}
