package dev.twophase.flink.internal;

import dev.twophase.annotation.Internal;
import dev.twophase.internal.engine.Member;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The link between a sink's committer and the writer of the same subtask and attempt, when Flink
 * chains the committer to the writer (its default), which puts both in one task, on one thread, in
 * one JVM. Flink's Sink V2 has no such path; through this one
 * <ul>
 *   <li>the committer tells the writer which of its committables are committed, from which the
 *       writer learns when handles can be retired ({@link dev.twophase.RetirementListener});
 *   <li>the committer commits the writer's own committables with the writer's participants, with
 *       {@code commit} on the live transaction (a Kafka producer reused, say) rather than
 *       {@code recoverAndCommit} from the handle on participants of its own.
 * </ul>
 * The key holds the task's name, so a committer in a task of its own (chaining disabled) never
 * meets the writer: then nothing is retired, and every commit is a {@code recoverAndCommit}.
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

  /** The writer's participants, for the commits of its own committables. */
  record Writer(String lineage, long epoch, Map<String, Member<Object, Object>> members) {}

  /** One committer's reports, in commit order, and the writer it serves, if it started. */
  static final class Channel {
    final Queue<Committed> committed = new ConcurrentLinkedQueue<>();
    /** Set by the writer once it began its first transactions, cleared when it closes. */
    volatile Writer writer;
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
