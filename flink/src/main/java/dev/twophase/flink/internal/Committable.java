package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.List;
import java.util.Objects;

/**
 * What one writer subtask hands its committer for one checkpoint: the handle of every participant's
 * pre-committed transaction, in registration order, so that the resources commit together and are
 * retried together.
 *
 * <p>{@code checkpointId} is the checkpoint the writer expected to pre-commit in (the last one it
 * snapshotted, plus one): Flink's {@code prepareCommit} is not told the id, so after a checkpoint
 * that never reached this subtask the actual id is higher. It serves messages only; Flink itself
 * files the committable under the actual id.
 *
 * @param checkpointId the checkpoint the writer expected (see above)
 * @param subtask      the writer subtask that pre-committed
 * @param lineage      the lineage of the transactions' names
 * @param epoch        the owner epoch of the writer incarnation
 * @param sequence     the transactions' sequence number within the incarnation
 * @param handles      the handles still to commit, in participant order
 */
@Internal
public record Committable(
    long checkpointId, int subtask, String lineage, long epoch, long sequence, List<EncodedHandle> handles) {

  public Committable {
    Objects.requireNonNull(lineage, "lineage");
    handles = List.copyOf(handles);
  }

  /** The same committable without its first {@code n} handles (those already committed). */
  public Committable withoutFirst(int n) {
    return new Committable(checkpointId, subtask, lineage, epoch, sequence, handles.subList(n, handles.size()));
  }

  @Override
  public String toString() {
    return "Committable[checkpoint ~" + checkpointId + ", subtask " + subtask + ", transaction "
        + lineage + "-" + epoch + "-" + sequence + ", handles " + handles + "]";
  }
}
