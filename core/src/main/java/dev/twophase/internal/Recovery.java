package dev.twophase.internal;

import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.TransactionNames;
import dev.twophase.internal.StateCodec.VersionedBytes;
import dev.twophase.internal.StateCodec.CoordinatorRecord;
import dev.twophase.internal.StateCodec.HandleRecord;
import dev.twophase.internal.StateCodec.ParticipantRecord;
import dev.twophase.internal.engine.Member;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  private final CoordinatorEngine core;

  Recovery(CoordinatorEngine core) {
    this.core = core;
  }

  void run(CoordinatorRecord record, long lastCompleted, long epoch, String logId, boolean sharedLog,
      LongConsumer completions) throws Exception {
    core.ownerEpoch = epoch;
    core.logId = logId;
    for (Member<Object, Object> member : core.members) {
      member.incarnation(TransactionNames.prefix(core.coordinatorId, member.name(), logId), epoch, sharedLog);
    }
    Map<String, ParticipantRecord> restored = restoredParticipants(record);
    core.log.info("coordinator {} recovering: epoch {}, log {}, last checkpoint {}, last completed {}",
        core.coordinatorId, epoch, logId, core.lastCheckpointId, lastCompleted);

    for (Member<Object, Object> member : core.members) {
      member.startRecovery(member.context());
    }
    restoreContexts(restored);
    List<List<Object>> handled = new ArrayList<>();
    core.members.forEach(s -> handled.add(new ArrayList<>()));
    commitDecided(restored, lastCompleted, handled, completions);
    abortOpen(restored, handled);
    for (Member<Object, Object> member : core.members) {
      member.finishRecovering(member.context(), handled.get(member.index()), core.lastCheckpointId,
          member.userContext(), null);
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
    core.members.forEach(m -> unknown.remove(m.name()));
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

  private void restoreContexts(Map<String, ParticipantRecord> restored) {
    for (Member<Object, Object> member : core.members) {
      ParticipantRecord p = restored.get(member.name());
      if (p != null) {
        // As in Flink: a restored participant keeps its (possibly empty) context; only a
        // participant new to this log initialises one.
        VersionedBytes context = p.context();
        member.restoreUserContext(context == null ? null : context.bytes(), context == null ? 0 : context.version(),
            where());
      } else {
        member.initializeUserContext();
      }
    }
  }

  private String where() {
    return "the state of coordinator '" + core.coordinatorId + "' (checkpoint " + core.lastCheckpointId + ")";
  }

  /** One handle to commit: the participant, the handle, when it was begun. */
  private record ToCommit(Member<Object, Object> member, Object handle, long begunAt) {}

  private void commitDecided(
      Map<String, ParticipantRecord> restored, long lastCompleted, List<List<Object>> handled,
      LongConsumer completions) {
    TreeMap<Long, ToCommit[]> toCommit = new TreeMap<>();
    for (Member<Object, Object> member : core.members) {
      ParticipantRecord p = restored.get(member.name());
      if (p == null || p.pending() == null) {
        continue;
      }
      for (HandleRecord h : p.pending()) {
        if (h.checkpointId() <= lastCompleted) {
          continue;
        }
        Object handle = member.decode(h.handle(), p.transactionCodecVersion(), where());
        toCommit.computeIfAbsent(h.checkpointId(), k -> new ToCommit[core.members.size()])[member.index()] =
            new ToCommit(member, handle, h.begunAtMillis());
      }
    }
    long highestCommitted = 0;
    for (Map.Entry<Long, ToCommit[]> e : toCommit.entrySet()) {
      long id = e.getKey();
      for (ToCommit c : e.getValue()) {
        if (c == null) {
          continue;
        }
        RecoveryAction.Kind kind =
            Commits.kind(c.member().commit(c.handle(), id, c.begunAt(), Member.CommitCall.RECOVERY));
        handled.get(c.member().index()).add(c.handle());
        core.log.info("coordinator {} recovery: checkpoint {} participant {} {}: {}",
            core.coordinatorId, id, c.member().name(), c.handle(), kind);
        core.listener.onRecoveryHandled(new RecoveryAction(
            core.coordinatorId, id, c.member().name(), String.valueOf(c.handle()), kind));
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
    for (Member<Object, Object> member : core.members) {
      ParticipantRecord p = restored.get(member.name());
      if (p == null || p.current() == null) {
        continue;
      }
      HandleRecord h = p.current();
      Object handle = member.decode(h.handle(), p.transactionCodecVersion(), where());
      RecoveryAction.Kind kind = switch (member.recoverAndAbort(handle, h.checkpointId(), core.lastCheckpointId)) {
        case ABORTED -> RecoveryAction.Kind.ABORTED;
        case NOT_FOUND -> RecoveryAction.Kind.NOTHING_TO_ABORT;
        case COMMITTED -> RecoveryAction.Kind.FOUND_COMMITTED;
      };
      handled.get(member.index()).add(handle);
      core.log.info("coordinator {} recovery: {} of participant {} (begun for checkpoint {}): {}",
          core.coordinatorId, handle, member.name(), h.checkpointId(), kind);
      core.listener.onRecoveryHandled(new RecoveryAction(
          core.coordinatorId, h.checkpointId(), member.name(), String.valueOf(handle), kind));
    }
  }
}
