package dev.twophase.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.internal.StateCodec.HandleRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One decided checkpoint's pre-committed transactions, per participant index, from its decision
 * until every participant committed it.
 */
@Internal
public final class PendingCheckpoint {

  final long id;
  /** The handles {@code preCommit} returned; null where a participant had no transaction. */
  final Object[] handles;
  final byte[][] encoded;
  final long[] begunAt;
  /** Participants before this index are committed; only the committing thread writes it. */
  volatile int committedThrough;
  long decidedAtNanos;
  final CompletableFuture<Void> committed = new CompletableFuture<>();

  PendingCheckpoint(long id, int participants) {
    this.id = id;
    this.handles = new Object[participants];
    this.encoded = new byte[participants][];
    this.begunAt = new long[participants];
  }

  void set(int index, Object handle, byte[] bytes, long begun) {
    handles[index] = handle;
    encoded[index] = bytes;
    begunAt[index] = begun;
  }

  void addHandle(int index, List<HandleRecord> into) {
    if (handles[index] != null) {
      into.add(new HandleRecord(id, begunAt[index], encoded[index]));
    }
  }

  public long id() {
    return id;
  }

  /** The handle the next commit attempt starts with, for reports; null when all are done. */
  public Object nextHandle() {
    int i = committedThrough;
    return i < handles.length ? handles[i] : null;
  }

  /** Completes when every participant committed this checkpoint. */
  public CompletableFuture<Void> committed() {
    return committed;
  }

  @Override
  public String toString() {
    return "PendingCheckpoint{" + id + ", committed through participant " + committedThrough + '}';
  }
}
