package dev.twophase.internal;

import dev.twophase.CoordinatorListener.RecoveryAction;
import dev.twophase.ProtocolPoint;
import dev.twophase.internal.engine.Member;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit side of a coordinator: commits of decided checkpoints (in participant order, resuming
 * after the participants already done), the checkpoint's completion, and the retirement of handles
 * that can no longer be committed again. What each commit's outcome means is the engine's
 * ({@link Member#commit}).
 */
final class Commits {

  private final CoordinatorEngine core;

  Commits(CoordinatorEngine core) {
    this.core = core;
  }

  /**
   * Commits a decided checkpoint in participant order, resuming after the participants already
   * done. Throws on the first failure; the checkpoint stays pending and a later call resumes.
   */
  void commitCheckpoint(PendingCheckpoint checkpoint) {
    int last = core.members.size() - 1;
    for (int i = checkpoint.committedThrough; i <= last; i++) {
      Object handle = checkpoint.handles[i];
      if (handle != null) {
        Member<Object, Object> member = core.members.get(i);
        RecoveryAction.Kind kind =
            kind(member.commit(handle, checkpoint.id, checkpoint.begunAt[i], Member.CommitCall.LIVE));
        if (kind == RecoveryAction.Kind.LOST_IGNORED) {
          core.listener.onRecoveryHandled(new RecoveryAction(core.coordinatorId, checkpoint.id, member.name(),
              String.valueOf(handle), kind));
        }
      }
      checkpoint.committedThrough = i + 1;
      if (i < last) {
        core.reached(ProtocolPoint.BETWEEN_COMMITS);
      }
    }
    core.reached(ProtocolPoint.AFTER_COMMITS);
  }

  /** What the listener is told of a commit's result. */
  static RecoveryAction.Kind kind(Member.Committed committed) {
    return switch (committed) {
      case COMMITTED -> RecoveryAction.Kind.COMMITTED;
      case ALREADY_COMMITTED -> RecoveryAction.Kind.ALREADY_COMMITTED;
      case LOST_IGNORED, UNKNOWN_IGNORED -> RecoveryAction.Kind.LOST_IGNORED;
    };
  }

  /**
   * Marks a fully committed checkpoint done: out of the pending set, its future completed; with
   * {@code retire}, its handles are retired once a later state record without them is durable.
   */
  void completed(PendingCheckpoint checkpoint, boolean retire) {
    core.pending.completed(checkpoint, retire);
    Duration took = Duration.ofNanos(core.config.ticker().read() - checkpoint.decidedAtNanos);
    CoordinatorEngine.CHECKPOINTS.debug("coordinator {}: checkpoint {} committed, {} ms after its decision",
        core.coordinatorId, checkpoint.id, took.toMillis());
    core.listener.onCheckpointCommitted(core.coordinatorId, checkpoint.id, took);
    checkpoint.committed.complete(null);
  }

  /** Tells each retirement listener that the handles of {@code checkpoints} are retired. */
  void retire(List<PendingCheckpoint> checkpoints) {
    if (checkpoints.isEmpty()) {
      return;
    }
    for (Member<Object, Object> member : core.members) {
      if (member.retirement() == null) {
        continue;
      }
      List<Object> handles = new ArrayList<>();
      for (PendingCheckpoint p : checkpoints) {
        if (p.handles[member.index()] != null) {
          handles.add(p.handles[member.index()]);
        }
      }
      member.retire(handles, checkpoints.get(checkpoints.size() - 1).id);
    }
  }

  /** At start-up, once the start-up record is durable: everything of earlier epochs is retired. */
  void earlierIncarnationsRetired() {
    for (Member<Object, Object> member : core.members) {
      member.earlierIncarnationsRetired();
    }
  }
}
