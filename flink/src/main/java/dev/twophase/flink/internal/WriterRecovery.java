package dev.twophase.flink.internal;

import dev.twophase.AbortOutcome;
import dev.twophase.CommitOutcome;
import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.DecisionLostException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionLostException;
import dev.twophase.TransactionNames;
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
  private final List<WriterSlot> slots;
  private final long epoch;
  private final long restoredCheckpointId;
  private final int subtask;

  WriterRecovery(SinkSpec spec, List<WriterSlot> slots, long epoch, long restoredCheckpointId, int subtask) {
    this.spec = spec;
    this.slots = slots;
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
  void run(List<LineageState> states) throws Exception {
    LineageState continued = states.isEmpty() ? null : states.get(0);
    for (WriterSlot slot : slots) {
      if (continued == null) {
        start(slot, slot.prefix);
      }
      for (LineageState state : states) {
        start(slot, TransactionNames.prefix(spec.sinkId(), slot.name, state.lineage()));
      }
    }
    restoreContexts(continued);
    List<List<List<Object>>> handled = new ArrayList<>();
    for (LineageState state : states) {
      handled.add(commitPending(state));
    }
    for (int l = 0; l < states.size(); l++) {
      List<List<Object>> aborted = abortOpen(states.get(l));
      for (int i = 0; i < slots.size(); i++) {
        handled.get(l).get(i).addAll(aborted.get(i));
      }
    }
    for (int l = 0; l < states.size(); l++) {
      LineageState state = states.get(l);
      for (int i = 0; i < slots.size(); i++) {
        WriterSlot slot = slots.get(i);
        String prefix = TransactionNames.prefix(spec.sinkId(), slot.name, state.lineage());
        Optional<Object> context = state == continued ? slot.context : contextOf(slot, state.participant(slot.name));
        finish(slot, new Contexts.Recovery<>(spec.sinkId(), slot.name, prefix, epoch, handled.get(l).get(i),
            context, restoredCheckpointId, new RecoveryRule(prefix, state.epoch(), state.nextSequence(), epoch)));
      }
    }
    if (continued == null) {
      // A fresh lineage: attempts that started it before and failed before their first checkpoint
      // left transactions no state names.
      for (WriterSlot slot : slots) {
        finish(slot, new Contexts.Recovery<>(spec.sinkId(), slot.name, slot.prefix, epoch, List.of(),
            slot.context, restoredCheckpointId, new RecoveryRule(slot.prefix, 0, 0, epoch)));
      }
    }
    LOG.info("sink {} subtask {}: recovered {} lineage(s) {} of checkpoint {}; epoch {}", spec.sinkId(), subtask,
        states.size(), states.stream().map(LineageState::lineage).toList(), restoredCheckpointId, epoch);
  }

  private void restoreContexts(LineageState continued) throws Exception {
    for (WriterSlot slot : slots) {
      ParticipantState p = continued == null ? null : continued.participant(slot.name);
      if (p != null) {
        // As in the coordinators: a restored participant keeps its (possibly empty) context.
        slot.context = contextOf(slot, p);
      } else {
        Optional<Object> initial = slot.participant.initializeUserContext(
            new Contexts.Participant(spec.sinkId(), slot.name, slot.prefix, epoch));
        slot.context = initial == null ? Optional.empty() : initial;
      }
    }
  }

  private Optional<Object> contextOf(WriterSlot slot, ParticipantState p) {
    if (p == null || p.context() == null) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(slot.contextCodec.decode(p.context(), p.contextCodecVersion()));
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + slot.name + "' cannot decode its context of codec "
          + "version " + p.contextCodecVersion() + " from the restored state: " + e.getMessage(), e,
          restoredCheckpointId, slot.name);
    }
  }

  /** Commits the lineage's pending handles; returns, per slot, the handles it handled. */
  private List<List<Object>> commitPending(LineageState state) throws Exception {
    List<List<Object>> handled = new ArrayList<>();
    for (WriterSlot slot : slots) {
      List<Object> mine = new ArrayList<>();
      handled.add(mine);
      ParticipantState p = state.participant(slot.name);
      if (p == null) {
        continue;
      }
      for (EncodedHandle h : p.pending()) {
        Object handle = slot.decode(h);
        CommitOutcome outcome;
        try {
          outcome = slot.participant.recoverAndCommit(handle);
        } catch (CommitOutcomeUnknownException e) {
          RuntimeException failure = CommitFailures.unknownOutcome(spec, slot.name, handle, restoredCheckpointId, e);
          if (failure != null) {
            throw failure;
          }
          mine.add(handle);
          continue;
        } catch (FatalTwoPhaseException e) {
          throw e;
        } catch (Exception e) {
          throw new RetriableTwoPhaseException("recoverAndCommit of " + handle + " (pending in checkpoint "
              + restoredCheckpointId + ", lineage " + state.lineage() + ") failed in participant '" + slot.name
              + "': " + e.getMessage() + "; the task fails and its next attempt tries again",
              e, restoredCheckpointId, slot.name);
        }
        if (outcome == null) {
          throw new FatalTwoPhaseException("participant '" + slot.name + "' returned null from recoverAndCommit("
              + handle + "); return a CommitOutcome", null, restoredCheckpointId, slot.name);
        }
        if (outcome == CommitOutcome.LOST) {
          TransactionLostException lost = CommitFailures.lost(spec, slot.name, slot.transactionTimeout(spec), handle,
              h.begunAtMillis(), restoredCheckpointId, subtask);
          if (lost != null) {
            throw lost;
          }
        }
        LOG.debug("sink {} subtask {}: {} of participant {} (pending in checkpoint {}): {}", spec.sinkId(), subtask,
            handle, slot.name, restoredCheckpointId, outcome);
        mine.add(handle);
      }
    }
    return handled;
  }

  /** Aborts the lineage's open transactions; returns, per slot, the handles it handled. */
  private List<List<Object>> abortOpen(LineageState state) {
    List<List<Object>> handled = new ArrayList<>();
    for (WriterSlot slot : slots) {
      List<Object> mine = new ArrayList<>(1);
      handled.add(mine);
      ParticipantState p = state.participant(slot.name);
      if (p == null || p.open() == null) {
        continue;
      }
      Object handle = slot.decode(p.open());
      AbortOutcome outcome;
      try {
        outcome = slot.participant.recoverAndAbort(handle);
      } catch (FatalTwoPhaseException e) {
        throw e;
      } catch (Exception e) {
        throw new RetriableTwoPhaseException("recoverAndAbort of " + handle + " (open in checkpoint "
            + restoredCheckpointId + ", lineage " + state.lineage() + ") failed in participant '" + slot.name
            + "': " + e.getMessage() + "; the task fails and its next attempt tries again",
            e, restoredCheckpointId, slot.name);
      }
      if (outcome == null) {
        throw new FatalTwoPhaseException("participant '" + slot.name + "' returned null from recoverAndAbort("
            + handle + "); return an AbortOutcome", null, restoredCheckpointId, slot.name);
      }
      if (outcome == AbortOutcome.COMMITTED) {
        decisionLost(slot, handle, state);
      }
      LOG.info("sink {} subtask {}: {} of participant {} (open in checkpoint {}): {}", spec.sinkId(), subtask,
          handle, slot.name, restoredCheckpointId, outcome);
      mine.add(handle);
    }
    return handled;
  }

  private void decisionLost(WriterSlot slot, Object handle, LineageState state) {
    String what = "transaction " + handle + " of participant '" + slot.name + "' was open in the restored "
        + "checkpoint " + restoredCheckpointId + " (lineage " + state.lineage() + "), so no restorable "
        + "decision covers it, yet the resource shows it committed: a later checkpoint was committed and "
        + "this is an older one (an older savepoint or retained checkpoint was restored)";
    if (!spec.continueAfterLostDecision()) {
      throw new DecisionLostException(what + ". Carrying on would write the records since checkpoint "
          + restoredCheckpointId + " a second time. Restore the latest checkpoint instead, or, if duplicates "
          + "are acceptable, build the sink with continueAfterLostDecision()", restoredCheckpointId, slot.name);
    }
    LOG.error("sink {} subtask {}: {}; carrying on as configured (continueAfterLostDecision): the records since "
        + "checkpoint {} are written again", spec.sinkId(), subtask, what, restoredCheckpointId);
  }

  /** {@code startRecovery} of one lineage's prefix, before anything of it is recovered. */
  private void start(WriterSlot slot, String prefix) {
    try {
      slot.participant.startRecovery(new Contexts.Participant(spec.sinkId(), slot.name, prefix, epoch));
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw new RetriableTwoPhaseException("startRecovery of lineage prefix " + prefix + " failed in participant '"
          + slot.name + "': " + e.getMessage() + "; the task fails and its next attempt tries again", e,
          restoredCheckpointId, slot.name);
    }
  }

  private void finish(WriterSlot slot, Contexts.Recovery<Object, Object> context) {
    try {
      slot.participant.finishRecoveringContext(context);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw new RetriableTwoPhaseException("finishRecoveringContext of lineage prefix "
          + context.transactionNamePrefix() + " failed in participant '" + slot.name + "': " + e.getMessage()
          + "; the task fails and its next attempt tries again", e, restoredCheckpointId, slot.name);
    }
  }
}
