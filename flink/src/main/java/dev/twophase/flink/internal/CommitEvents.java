package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The committer's word to the writer of the same subtask and attempt that one of the writer's
 * committables is committed: the in-JVM back channel through which the writer learns when its
 * handles can be retired ({@link dev.twophase.RetirementListener}). Flink's Sink V2 has no such
 * path; it exists only when the committer is chained to the writer (Flink's default), which puts
 * both in one task, on one thread, in one JVM. The key holds the task's name, so a committer in a
 * task of its own (chaining disabled) never meets the writer, which then retires nothing.
 *
 * <p>Chaining also orders their starts: Flink initializes a chain's operators from its tail, so the
 * committer registers its channel, and commits the committables it restored, before the writer
 * starts. That is what lets the writer tell earlier incarnations' transactions retired.
 */
@Internal
public final class CommitEvents {

  /** Who a channel connects: a sink's committer and writer in one task of one job attempt. */
  public record Key(String job, String sink, String task, int subtask, int attempt) {}

  /** What the committer reports: the committable of this lineage, epoch and sequence is committed. */
  record Committed(String lineage, long epoch, long sequence) {}

  /** One committer's reports, in commit order. */
  static final class Channel {
    final Queue<Committed> committed = new ConcurrentLinkedQueue<>();
  }

  private static final Map<Key, Channel> CHANNELS = new ConcurrentHashMap<>();

  private CommitEvents() {}

  /** The committer opens the channel of its task when it is created. */
  static Channel open(Key key) {
    Channel channel = new Channel();
    CHANNELS.put(key, channel);
    return channel;
  }

  /** The writer looks for its committer's channel when it starts; null if it is not chained. */
  static Channel find(Key key) {
    return key == null ? null : CHANNELS.get(key);
  }

  /** The committer closes its channel when it closes. */
  static void close(Key key, Channel channel) {
    CHANNELS.remove(key, channel);
  }
}
