package dev.twophase.internal;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.DecisionLostException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionNames;
import dev.twophase.internal.StateCodec.Blob;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * Start-up over the last state record: commit the checkpoints it holds as decided and not known
 * complete (checkpoint order, then participant order), abort the transactions it holds as open
 * (participant order, the order of commits, so that a lost decision is noticed at the first
 * participant that committed it), let each participant clean up what the log cannot know, and
 * restore the application. Idempotent: a crash anywhere in it is recovered by running it again.
 */
final class Recovery {

  private final CoordinatorCore core;

  Recovery(CoordinatorCore core) {
    this.core = core;
  }

  void run(CoordinatorRecord record, long lastCompleted, long epoch, String logId, LongConsumer completions)
      throws Exception {
    core.ownerEpoch = epoch;
    core.logId = logId;
    for (Slot<Object, Object> slot : core.slots) {
      slot.namePrefix = TransactionNames.prefix(core.coordinatorId, slot.name, logId);
    }
    Map<String, ParticipantRecord> restored = restoredParticipants(record);
    core.log.info("coordinator {} recovering: epoch {}, log {}, last checkpoint {}, last completed {}",
        core.coordinatorId, epoch, logId, core.lastCheckpointId, lastCompleted);

    for (Slot<Object, Object> slot : core.slots) {
      try {
        slot.participant.startRecovery(slot.participantContext(core.coordinatorId, epoch, core.config));
      } catch (FatalTwoPhaseException ex) {
        throw ex;
      } catch (Exception ex) {
        throw new RetriableTwoPhaseException("startRecovery failed in participant '" + slot.name + "': "
            + ex.getMessage() + "; start-up stopped, build the coordinator again to retry",
            ex, core.lastCheckpointId, slot.name);
      }
    }
    restoreContexts(restored);
    List<List<Object>> handled = new ArrayList<>();
    core.slots.forEach(s -> handled.add(new ArrayList<>()));
    commitDecided(restored, lastCompleted, handled, completions);
    abortOpen(restored, handled);
    for (Slot<Object, Object> slot : core.slots) {
      try {
        slot.participant.finishRecoveringContext(slot.recoveryContext(
            core.coordinatorId, epoch, core.config,
            handled.get(slot.index), core.lastCheckpointId));
      } catch (FatalTwoPhaseException ex) {
        throw ex;
      } catch (Exception ex) {
        throw new RetriableTwoPhaseException(
            "finishRecoveringContext failed in participant '" + slot.name + "': " + ex.getMessage()
                + "; start-up stopped, build the coordinator again to retry",
            ex, core.lastCheckpointId, slot.name);
      }
    }
    core.restoreApplication(-1);
    core.snapshotApplicationAtStart();
  }

  private Map<String, ParticipantRecord> restoredParticipants(CoordinatorRecord record) {
    Map<String, ParticipantRecord> restored = new LinkedHashMap<>();
    if (record == null) {
      return restored;
    }
    if (!record.coordinatorId().equals(core.coordinatorId)) {
      throw new FatalTwoPhaseException(
          "the restored state belongs to coordinator '" + record.coordinatorId()
              + "', not to '" + core.coordinatorId + "'");
    }
    for (ParticipantRecord p : record.participants()) {
      restored.put(p.name(), p);
    }
    List<String> unknown = new ArrayList<>(restored.keySet());
    core.slots.forEach(s -> unknown.remove(s.name));
    if (!unknown.isEmpty()) {
      throw new FatalTwoPhaseException(
          "the state of coordinator '" + core.coordinatorId + "' (checkpoint " + record.checkpointId()
              + ") holds participants " + unknown + " that are not configured; they may have "
              + "pending transactions. Register them again, with the same names, to recover");
    }
    core.lastCheckpointId = record.checkpointId();
    core.lastApplicationSnapshot = record.application();
    return restored;
  }

  private void restoreContexts(Map<String, ParticipantRecord> restored) throws Exception {
    for (Slot<Object, Object> slot : core.slots) {
      ParticipantRecord p = restored.get(slot.name);
      if (p != null) {
        // As in Flink: a restored participant keeps its (possibly empty) context; only a
        // participant new to this log initialises one.
        slot.context = p.context() == null
            ? Optional.empty()
            : Optional.ofNullable(decode(slot.contextCodec, p.context(), slot, "context"));
      } else {
        Optional<Object> initial = slot.participant.initializeUserContext(
            slot.participantContext(core.coordinatorId, core.ownerEpoch, core.config));
        slot.context = initial == null ? Optional.empty() : initial;
      }
    }
  }

  /** One handle to commit: the participant's slot, the handle, when it was begun. */
  private record ToCommit(Slot<Object, Object> slot, Object handle, long begunAt) {}

  private void commitDecided(
      Map<String, ParticipantRecord> restored, long lastCompleted, List<List<Object>> handled,
      LongConsumer completions) {
    TreeMap<Long, ToCommit[]> toCommit = new TreeMap<>();
    for (Slot<Object, Object> slot : core.slots) {
      ParticipantRecord p = restored.get(slot.name);
      if (p == null || p.pending() == null) {
        continue;
      }
      for (HandleRecord h : p.pending()) {
        if (h.checkpointId() <= lastCompleted) {
          continue;
        }
        Object handle = decode(slot.transactionCodec, new Blob(p.transactionCodecVersion(), h.handle()), slot, "handle");
        toCommit.computeIfAbsent(h.checkpointId(), k -> new ToCommit[core.slots.size()])[slot.index] =
            new ToCommit(slot, handle, h.begunAtMillis());
      }
    }
    long highestCommitted = 0;
    for (Map.Entry<Long, ToCommit[]> e : toCommit.entrySet()) {
      long id = e.getKey();
      for (ToCommit c : e.getValue()) {
        if (c == null) {
          continue;
        }
        RecoveryAction.Kind kind = Commits.commitOne(core, c.slot(), id, c.handle(), c.begunAt(), true);
        handled.get(c.slot().index).add(c.handle());
        core.log.info("coordinator {} recovery: checkpoint {} participant {} {}: {}",
            core.coordinatorId, id, c.slot().name, c.handle(), kind);
        core.listener.onRecoveryHandled(new RecoveryAction(
            core.coordinatorId, id, c.slot().name, String.valueOf(c.handle()), kind));
        core.reached(ProtocolPoint.DURING_RECOVERY_COMMIT);
      }
      highestCommitted = id;
    }
    if (highestCommitted > 0) {
      completions.accept(highestCommitted);
    }
  }

  /** Transactions open when the last state was written: never decided, so abort. */
  private void abortOpen(Map<String, ParticipantRecord> restored, List<List<Object>> handled) {
    for (Slot<Object, Object> slot : core.slots) {
      ParticipantRecord p = restored.get(slot.name);
      if (p == null || p.current() == null) {
        continue;
      }
      HandleRecord h = p.current();
      Object handle = decode(slot.transactionCodec, new Blob(p.transactionCodecVersion(), h.handle()), slot, "handle");
      AbortOutcome outcome;
      try {
        outcome = slot.participant.recoverAndAbort(handle);
      } catch (FatalTwoPhaseException ex) {
        throw ex;
      } catch (Exception ex) {
        throw new RetriableTwoPhaseException(
            "recoverAndAbort of " + handle + " (begun for checkpoint " + h.checkpointId()
                + ") failed in participant '" + slot.name + "': " + ex.getMessage()
                + "; start-up stopped, build the coordinator again to retry",
            ex, h.checkpointId(), slot.name);
      }
      if (outcome == null) {
        throw new FatalTwoPhaseException("participant '" + slot.name + "' returned null from "
            + "recoverAndAbort(" + handle + "); return an AbortOutcome", null, h.checkpointId(), slot.name);
      }
      RecoveryAction.Kind kind = switch (outcome) {
        case ABORTED -> RecoveryAction.Kind.ABORTED;
        case NOT_FOUND -> RecoveryAction.Kind.NOTHING_TO_ABORT;
        case COMMITTED -> decisionLost(slot, handle, h.checkpointId());
      };
      handled.get(slot.index).add(handle);
      core.log.info("coordinator {} recovery: {} of participant {} (begun for checkpoint {}): {}",
          core.coordinatorId, handle, slot.name, h.checkpointId(), kind);
      core.listener.onRecoveryHandled(new RecoveryAction(
          core.coordinatorId, h.checkpointId(), slot.name, String.valueOf(handle), kind));
    }
  }

  private RecoveryAction.Kind decisionLost(Slot<Object, Object> slot, Object handle, long checkpointId) {
    String what = "participant '" + slot.name + "' shows transaction " + handle + " committed, but the "
        + "state log of coordinator '" + core.coordinatorId + "' holds it as undecided (begun for "
        + "checkpoint " + checkpointId + ", last decided checkpoint " + core.lastCheckpointId + "): the "
        + "log lost a later decision (a damaged or replaced log, a log restored from an old backup, or "
        + "another log used with the same output)";
    if (core.config.continueAfterLostDecision()) {
      core.log.error("{}. Carrying on as configured (continueAfterLostDecision): the transaction stays "
          + "committed, and the application resumes from checkpoint {}, so the records after it are "
          + "written again", what, core.lastCheckpointId);
      return RecoveryAction.Kind.FOUND_COMMITTED;
    }
    throw new DecisionLostException(what + ". Start-up stopped before restoring the application, so "
        + "nothing is written twice. Find out why the log lost its records (restore it from a "
        + "backup, check that this log belongs to this output); if duplicates are acceptable, build "
        + "the coordinator with CoordinatorConfig.continueAfterLostDecision()", checkpointId, slot.name);
  }

  private Object decode(Codec<Object> codec, Blob blob, Slot<?, ?> slot, String what) {
    try {
      return codec.decode(blob.bytes(), blob.version());
    } catch (Exception e) {
      throw new FatalTwoPhaseException(
          "participant '" + slot.name + "' cannot decode its " + what + " (codec version "
              + blob.version() + ") from the state of coordinator '" + core.coordinatorId + "': "
              + e.getMessage() + "; use a codec that reads this version",
          e, core.lastCheckpointId, slot.name);
    }
  }
}
