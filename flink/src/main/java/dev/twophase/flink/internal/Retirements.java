package dev.twophase.flink.internal;

import dev.twophase.RetirementListener;
import dev.twophase.internal.engine.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a writer's {@link RetirementListener} participants when their handles will never be
 * committed again, from what the chained committer reports ({@link CommitEvents}). A handle of
 * the committable of sequence q is retired once
 * <ol>
 *   <li>the committer reported q committed, and then
 *   <li>a checkpoint taken after the writer learned it completed: the writer tags q with the
 *       sequence of the committable it emits next (its checkpoint's snapshots, the committer's
 *       among them, follow), and retires q when that or a later committable is reported committed.
 * </ol>
 * From then on no checkpoint that Flink restores by itself holds q's committable. (A savepoint or
 * retained checkpoint from before may still be restored by hand; see {@code docs/flink.md}.)
 *
 * <p>Until then the handles travel in the writer state as pending ({@link #pending}), so that a
 * writer restored from any checkpoint that may still hold them knows them.
 *
 * <p>Earlier incarnations: when the first committable of this incarnation is reported committed,
 * a checkpoint taken after this writer started completed; if this subtask restored only its own
 * state (same subtask, same parallelism), its chained committer committed everything that state's
 * committables held before the writer started, so nothing of an earlier incarnation of its lineage
 * will be committed again. Task thread only.
 */
final class Retirements {

  private static final Logger LOG = LoggerFactory.getLogger(Retirements.class);

  private final CommitEvents.Channel channel;
  private final String lineage;
  private final long epoch;
  private final List<Member<Object, Object>> members;
  private final boolean earlierRetirable;
  /** Pre-commit handles (per member) of emitted committables not yet retired, by sequence. */
  private final Map<Long, Object[]> unretired = new HashMap<>();
  /** The same handles as the committables carry them, by sequence (in emit order). */
  private final Map<Long, List<EncodedHandle>> unretiredEncoded = new TreeMap<>();
  /** Committed sequences, each with the sequence whose commit retires it. */
  private final Map<Long, Long> retireWhen = new HashMap<>();
  private boolean earlierDone;

  private Retirements(CommitEvents.Channel channel, String lineage, long epoch,
      List<Member<Object, Object>> members, boolean earlierRetirable) {
    this.channel = channel;
    this.lineage = lineage;
    this.epoch = epoch;
    this.members = members;
    this.earlierRetirable = earlierRetirable;
  }

  /**
   * Retirement for a writer, or null if none of its participants listens or no committer is
   * chained to it.
   *
   * @param earlierRetirable whether the writer restored nothing, or only the state its own subtask
   *     took at the same parallelism (so that its chained committer restored that state's
   *     committables)
   */
  static Retirements of(CommitEvents.Channel channel, String sinkId, String lineage, long epoch,
      List<Member<Object, Object>> members, boolean earlierRetirable) {
    for (Member<Object, Object> member : members) {
      if (member.retirement() != null) {
        if (channel == null) {
          LOG.warn("sink {}: participant '{}' listens for retirement, but no committer is chained to this writer "
              + "(operator chaining disabled?): its handles are never retired", sinkId, member.name());
          return null;
        }
        return new Retirements(channel, lineage, epoch, members, earlierRetirable);
      }
    }
    return null;
  }

  /** Takes the committer's reports; {@code emitting} is the sequence of the committable emitted next. */
  void drain(long emitting) {
    CommitEvents.Committed c;
    while ((c = channel.committed.poll()) != null) {
      if (!c.lineage().equals(lineage) || c.epoch() != epoch) {
        continue; // a committable of another writer (restored after a change of parallelism)
      }
      long committed = c.sequence();
      for (Iterator<Map.Entry<Long, Long>> it = retireWhen.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, Long> e = it.next();
        if (e.getValue() <= committed) {
          retire(e.getKey());
          it.remove();
        }
      }
      if (unretired.containsKey(committed)) {
        retireWhen.put(committed, emitting);
      }
      if (!earlierDone) {
        earlierDone = true;
        if (earlierRetirable) {
          earlierIncarnationsRetired();
        }
      }
    }
  }

  /**
   * The committable of {@code sequence} left the writer with these pre-commit handles ({@code
   * handles} per member, {@code encoded} as the committable carries them).
   */
  void emitted(long sequence, Object[] handles, List<EncodedHandle> encoded) {
    unretired.put(sequence, handles.clone());
    unretiredEncoded.put(sequence, List.copyOf(encoded));
  }

  /**
   * The handles of {@code member}'s participant that a checkpoint taken now may still hold in its
   * committer state, oldest first, for the writer state (see {@link ParticipantState#pending()}):
   * those emitted and not yet reported committed. A handle reported committed is left out although
   * it is not retired yet: it retires once the committable emitted after the report is committed,
   * which is when this checkpoint completes, and its resources may be reused from then on, while
   * this checkpoint is still the one a restore takes. Empty for a participant that does not listen
   * for retirement.
   */
  List<EncodedHandle> pending(Member<Object, Object> member) {
    if (member.retirement() == null) {
      return List.of();
    }
    List<EncodedHandle> pending = new ArrayList<>();
    for (Map.Entry<Long, List<EncodedHandle>> e : unretiredEncoded.entrySet()) {
      if (retireWhen.containsKey(e.getKey())) {
        continue; // committed
      }
      for (EncodedHandle h : e.getValue()) {
        if (h.participant().equals(member.name())) {
          pending.add(h);
        }
      }
    }
    return pending;
  }

  private void retire(long sequence) {
    Object[] handles = unretired.remove(sequence);
    unretiredEncoded.remove(sequence);
    if (handles == null) {
      return;
    }
    for (int i = 0; i < handles.length; i++) {
      if (handles[i] != null) {
        members.get(i).retire(List.of(handles[i]), sequence);
      }
    }
  }

  private void earlierIncarnationsRetired() {
    for (Member<Object, Object> member : members) {
      member.earlierIncarnationsRetired();
    }
  }
}
