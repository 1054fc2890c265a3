package dev.twophase.internal;

import dev.twophase.CommitOutcome;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit side of the protocol: commits of decided checkpoints (in participant order, resuming
 * after the participants already done), what their outcomes mean (a lost transaction is an error
 * unless the user opted in), timeout warnings, and the retirement of handles that can no longer be
 * committed again.
 */
final class Commits {

  private final CoordinatorCore core;

  Commits(CoordinatorCore core) {
    this.core = core;
  }

  /**
   * Commits a decided checkpoint in participant order, resuming after the participants already
   * done. Throws on the first failure; the checkpoint stays pending and a later call resumes.
   */
  void commitCheckpoint(PendingCheckpoint checkpoint) {
    int last = core.slots.size() - 1;
    for (int i = checkpoint.committedThrough; i <= last; i++) {
      Object handle = checkpoint.handles[i];
      if (handle != null) {
        Slot<Object, Object> slot = core.slots.get(i);
        if (commitOne(core, slot, checkpoint.id, handle, checkpoint.begunAt[i], false)
            == RecoveryAction.Kind.LOST_IGNORED) {
          core.listener.onRecoveryHandled(new RecoveryAction(core.coordinatorId, checkpoint.id, slot.name,
              String.valueOf(handle), RecoveryAction.Kind.LOST_IGNORED));
        }
      }
      checkpoint.committedThrough = i + 1;
      if (i < last) {
        core.reached(ProtocolPoint.BETWEEN_COMMITS);
      }
    }
    core.reached(ProtocolPoint.AFTER_COMMITS);
  }

  /**
   * Marks a fully committed checkpoint done: out of the pending set, its future completed; with
   * {@code retire}, its handles are retired once a later state record without them is durable.
   */
  void completed(PendingCheckpoint checkpoint, boolean retire) {
    core.pending.completed(checkpoint, retire);
    Duration took = Duration.ofNanos(core.config.ticker().read() - checkpoint.decidedAtNanos);
    CoordinatorCore.CHECKPOINTS.debug("coordinator {}: checkpoint {} committed, {} ms after its decision",
        core.coordinatorId, checkpoint.id, took.toMillis());
    core.listener.onCheckpointCommitted(core.coordinatorId, checkpoint.id, took);
    checkpoint.committed.complete(null);
  }

  /** Tells each retirement listener that the handles of {@code checkpoints} are retired. */
  void retire(List<PendingCheckpoint> checkpoints) {
    if (checkpoints.isEmpty()) {
      return;
    }
    for (Slot<Object, Object> slot : core.slots) {
      if (slot.retirement == null) {
        continue;
      }
      List<Object> handles = new ArrayList<>();
      for (PendingCheckpoint p : checkpoints) {
        if (p.handles[slot.index] != null) {
          handles.add(p.handles[slot.index]);
        }
      }
      if (handles.isEmpty()) {
        continue;
      }
      try {
        slot.retirement.onRetired(handles);
      } catch (Exception | Error e) {
        core.log.warn("coordinator {}: participant '{}' failed to retire {} handle(s) (up to checkpoint "
            + "{}); it cleans them up at its next start", core.coordinatorId, slot.name, handles.size(),
            checkpoints.get(checkpoints.size() - 1).id, e);
      }
    }
  }

  /** At start-up, once the start-up record is durable: everything of earlier epochs is retired. */
  void earlierIncarnationsRetired() {
    for (Slot<Object, Object> slot : core.slots) {
      if (slot.retirement == null) {
        continue;
      }
      try {
        slot.retirement.onEarlierIncarnationsRetired(
            slot.participantContext(core.coordinatorId, core.ownerEpoch, core.config));
      } catch (Exception | Error e) {
        core.log.warn("coordinator {}: participant '{}' failed to retire the transactions of earlier "
            + "incarnations; it may try again at its next start", core.coordinatorId, slot.name, e);
      }
    }
  }

  /** Commits one handle and says what happened; see the class comment for the outcomes. */
  static RecoveryAction.Kind commitOne(
      CoordinatorCore core, Slot<Object, Object> slot, long checkpointId, Object handle, long begunAt,
      boolean recovery) {
    Duration age = Duration.ofMillis(Math.max(0, core.config.clock().millis() - begunAt));
    warnIfOld(core, slot, checkpointId, handle, age);
    CommitOutcome outcome;
    try {
      outcome = recovery ? slot.participant.recoverAndCommit(handle) : slot.participant.commit(handle);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      // As in Flink, only recovery gives up on a failing old transaction; a running coordinator
      // retries, since a transient failure may still pass.
      if (recovery && ignorable(core, slot, age)) {
        logIgnoredLoss(core, slot, checkpointId, handle, age, e);
        return RecoveryAction.Kind.LOST_IGNORED;
      }
      throw new RetriableTwoPhaseException(
          (recovery ? "recoverAndCommit" : "commit") + " of " + handle + " (checkpoint " + checkpointId
              + ") failed in participant '" + slot.name + "': " + e.getMessage()
              + "; the transaction stays pending and is retried",
          e, checkpointId, slot.name);
    }
    if (outcome == null) {
      throw new FatalTwoPhaseException(
          "participant '" + slot.name + "' returned null from " + (recovery ? "recoverAndCommit" : "commit")
              + "(" + handle + "); return a CommitOutcome",
          null, checkpointId, slot.name);
    }
    switch (outcome) {
      case COMMITTED:
        return RecoveryAction.Kind.COMMITTED;
      case ALREADY_COMMITTED:
        return RecoveryAction.Kind.ALREADY_COMMITTED;
      default:
        if (ignorable(core, slot, age)) {
          logIgnoredLoss(core, slot, checkpointId, handle, age, null);
          return RecoveryAction.Kind.LOST_IGNORED;
        }
        throw new TransactionLostException(
            "transaction " + handle + " of decided checkpoint " + checkpointId + " can no longer be "
                + "committed in participant '" + slot.name + "': its records are missing there while "
                + "other participants may show theirs. " + whyLost(slot, age),
            checkpointId, slot.name);
    }
  }

  /** What most likely lost a transaction, from its age and timeout, and what to do about it. */
  static String whyLost(Slot<?, ?> slot, Duration age) {
    String notDurable = "so it did not expire: the participant's preCommit or commit was probably not "
        + "durable (a database with delayed writes, such as H2 without WRITE_DELAY=0, PostgreSQL "
        + "with synchronous_commit=off, MySQL with innodb_flush_log_at_trx_commit=0), or the "
        + "resource was changed by hand. Make pre-commits and commits durable before they return";
    if (slot.timeout == null) {
      return "No transaction timeout applies to it (age " + age.toMillis() + " ms), " + notDurable;
    }
    if (age.compareTo(slot.timeout) < 0) {
      return "It is younger than its timeout (age " + age.toMillis() + " ms, timeout "
          + slot.timeout.toMillis() + " ms), " + notDurable;
    }
    return "It is older than its timeout (age " + age.toMillis() + " ms, timeout "
        + slot.timeout.toMillis() + " ms): the resource probably expired it. Raise the resource's "
        + "transaction timeout or checkpoint more often; to drop such transactions instead, enable "
        + "ignoreFailuresAfterTransactionTimeout";
  }

  private static boolean ignorable(CoordinatorCore core, Slot<?, ?> slot, Duration age) {
    return core.config.ignoreFailuresAfterTransactionTimeout()
        && slot.timeout != null
        && age.compareTo(slot.timeout) >= 0;
  }

  private static void logIgnoredLoss(
      CoordinatorCore core, Slot<?, ?> slot, long checkpointId, Object handle, Duration age, Exception e) {
    core.log.error(
        "coordinator {}: transaction {} of checkpoint {} in participant '{}' could not be committed "
            + "and is older than its timeout ({} ms >= {} ms); ignoring it as configured. Data loss "
            + "might have occurred.",
        core.coordinatorId, handle, checkpointId, slot.name, age.toMillis(), slot.timeout.toMillis(), e);
  }

  private static void warnIfOld(
      CoordinatorCore core, Slot<?, ?> slot, long checkpointId, Object handle, Duration age) {
    double ratio = core.config.transactionTimeoutWarningRatio();
    if (ratio < 0 || slot.timeout == null) {
      return;
    }
    if (age.toMillis() >= ratio * slot.timeout.toMillis()) {
      core.log.warn(
          "coordinator {}: transaction {} of checkpoint {} in participant '{}' is {} ms old, {}% of "
              + "its timeout of {} ms; it may expire before it is committed",
          core.coordinatorId, handle, checkpointId, slot.name, age.toMillis(),
          Math.round(100.0 * age.toMillis() / slot.timeout.toMillis()), slot.timeout.toMillis());
      core.listener.onTransactionTimeoutWarning(new CoordinatorListener.TimeoutWarning(
          core.coordinatorId, checkpointId, slot.name, String.valueOf(handle), age, slot.timeout));
    }
  }
}
