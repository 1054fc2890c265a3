package dev.twophase.flink.internal;

import dev.twophase.CommitOutcome;
import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.TransactionLostException;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's committer: commits each committable's handles in participant order. A committable of
 * the writer chained to it (see {@link CommitEvents}) is committed with {@code commit} by the
 * writer's participants, which hold the live transactions; any other (restored after a failover,
 * or pre-committed by a writer in another task) with {@code recoverAndCommit}, from the handle
 * alone, by participants of the committer's own. Outcomes map onto Flink's
 * {@link Committer.CommitRequest}:
 *
 * <table>
 *   <caption>outcomes</caption>
 *   <tr><th>participant says</th><th>request</th></tr>
 *   <tr><td>{@code COMMITTED} / {@code ALREADY_COMMITTED}</td><td>on to the next participant; done
 *       after the last ({@code signalAlreadyCommitted} if every one was already committed)</td></tr>
 *   <tr><td>an exception</td><td>{@code updateAndRetryLater} without the participants already
 *       committed, or {@code retryLater}; Flink retries up to {@code sink.committer.retries} times,
 *       then fails the job, which commits it again on restore</td></tr>
 *   <tr><td>a {@link FatalTwoPhaseException} or an {@link Error}</td><td>{@code
 *       signalFailedWithUnknownReason}: the job fails and the next attempt commits again</td></tr>
 *   <tr><td>a {@link CommitOutcomeUnknownException}</td><td>{@code signalFailedWithUnknownReason}
 *       with a {@code SuppressRestartsException}: the job fails without restarting, since every
 *       restore would ask again (see {@link CommitFailures}); with
 *       {@code continueAfterUnknownCommitOutcome}, an ERROR and on to the next participant</td></tr>
 *   <tr><td>an {@link InterruptedException}, or any exception while the thread is interrupted</td>
 *       <td>rethrown as an {@code InterruptedException}, the flag set: the task is being cancelled,
 *       and the committable stays in the state</td></tr>
 *   <tr><td>{@code LOST}</td><td>{@code signalFailedWithUnknownReason} with a
 *       {@link TransactionLostException} naming the checkpoint and the handle: the job fails. Never
 *       {@code signalFailedWithKnownReason}, with which Flink would only log and drop it. With
 *       {@code ignoreFailuresAfterTransactionTimeout}, a transaction older than its timeout is
 *       dropped with an ERROR instead, as the coordinators do</td></tr>
 * </table>
 */
@Internal
public final class TwoPhaseCommitter implements Committer<Committable> {

  private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseCommitter.class);

  private final SinkSpec spec;
  private final Map<String, Slot> slots = new LinkedHashMap<>();
  /** Where committed committables are reported to the chained writer, or null. */
  private final CommitEvents.Key key;
  private final CommitEvents.Channel channel;

  /** One participant of the committer. */
  private record Slot(String name, Participant<Object, Object> participant, Duration timeout) {}

  /** A committer that reports to no writer. */
  public TwoPhaseCommitter(SinkSpec spec) {
    this(spec, null);
  }

  /**
   * Creates a participant per spec (whatever fails, those created are closed) and, if {@code key}
   * is given, opens the channel that reports committed committables to the chained writer.
   */
  @SuppressWarnings("unchecked")
  public TwoPhaseCommitter(SinkSpec spec, CommitEvents.Key key) {
    this.spec = spec;
    this.key = key;
    try {
      for (ParticipantSpec p : spec.participants()) {
        Participant<Object, Object> participant = (Participant<Object, Object>) p.factory().create();
        if (participant == null) {
          throw new FatalTwoPhaseException("the factory of participant '" + p.name() + "' returned null");
        }
        Duration timeout;
        try {
          timeout = participant.transactionTimeout().orElse(spec.transactionTimeout());
        } catch (RuntimeException | Error e) {
          Resources.closeQuietly(participant, e);
          throw e;
        }
        slots.put(p.name(), new Slot(p.name(), participant, timeout));
      }
    } catch (RuntimeException | Error e) {
      closeParticipants(e);
      throw e;
    } catch (Exception e) {
      closeParticipants(e);
      throw new FatalTwoPhaseException("sink " + spec.sinkId() + ": a participant factory failed: " + e, e);
    }
    this.channel = key == null ? null : CommitEvents.open(key);
  }

  @Override
  public void commit(Collection<CommitRequest<Committable>> requests) throws InterruptedException {
    for (CommitRequest<Committable> request : requests) {
      commit(request);
    }
  }

  private void commit(CommitRequest<Committable> request) throws InterruptedException {
    Committable c = request.getCommittable();
    boolean allAlready = true;
    List<EncodedHandle> handles = c.handles();
    for (int i = 0; i < handles.size(); i++) {
      EncodedHandle h = handles.get(i);
      Slot slot = slots.get(h.participant());
      if (slot == null) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": " + c
            + " holds a handle of participant '" + h.participant() + "', which the sink does not have ("
            + slots.keySet() + "); add it again, with the same name, to commit it. " + WriterRecovery.REMOVING,
            null, c.checkpointId(),
            h.participant()));
        return;
      }
      // The writer's own committables are committed by its participants, live; others (restored,
      // or without a chained writer) from the handle by the committer's participants.
      CommitEvents.Writer writer = channel == null ? null : channel.writer;
      WriterSlot live = writer != null && writer.lineage().equals(c.lineage()) && writer.epoch() == c.epoch()
          ? writer.slots().get(h.participant()) : null;
      Participant<Object, Object> participant = live != null ? live.participant : slot.participant;
      Object handle;
      CommitOutcome outcome;
      try {
        handle = participant.transactionCodec().decode(h.bytes(), h.codecVersion());
        if (handle == null) {
          throw new FatalTwoPhaseException("its transaction codec decoded " + h + " as null");
        }
      } catch (Exception | Error e) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": participant '"
            + slot.name + "' cannot decode its handle of codec version " + h.codecVersion() + " in " + c + ": " + e,
            e, c.checkpointId(), slot.name));
        return;
      }
      try {
        outcome = live != null ? participant.commit(handle) : participant.recoverAndCommit(handle);
      } catch (CommitOutcomeUnknownException e) {
        RuntimeException failure = CommitFailures.unknownOutcome(spec, slot.name, handle, c.checkpointId(), e);
        if (failure != null) {
          request.signalFailedWithUnknownReason(failure);
          return;
        }
        allAlready = false;
        continue;
      } catch (FatalTwoPhaseException | Error e) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": commit of "
            + handle + " (checkpoint ~" + c.checkpointId() + ") failed in participant '" + slot.name + "' for a "
            + "reason retrying will not fix: " + e + "; the job fails and commits it again when it restores",
            e, c.checkpointId(), slot.name));
        return;
      } catch (Exception e) {
        if (e instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
          // The task is being cancelled: no retry now; the committable stays in the state.
          Thread.currentThread().interrupt();
          InterruptedException interrupted = new InterruptedException("sink " + spec.sinkId() + ": commit of "
              + handle + " (checkpoint ~" + c.checkpointId() + ") in participant '" + slot.name + "' interrupted");
          interrupted.initCause(e);
          throw interrupted;
        }
        LOG.warn("sink {}: commit of {} (checkpoint ~{}, retry {}) failed in participant '{}'; retried",
            spec.sinkId(), handle, c.checkpointId(), request.getNumberOfRetries(), slot.name, e);
        if (i == 0) {
          request.retryLater();
        } else {
          request.updateAndRetryLater(c.withoutFirst(i));
        }
        return;
      }
      if (outcome == null) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("participant '" + slot.name
            + "' returned null from recoverAndCommit(" + handle + "); return a CommitOutcome", null,
            c.checkpointId(), slot.name));
        return;
      }
      switch (outcome) {
        case COMMITTED -> allAlready = false;
        case ALREADY_COMMITTED -> { }
        case LOST -> {
          allAlready = false;
          if (!lost(request, c, slot, handle, h)) {
            return;
          }
        }
        default -> throw new IllegalStateException("unknown outcome " + outcome);
      }
    }
    if (allAlready && !handles.isEmpty()) {
      request.signalAlreadyCommitted();
    }
    if (channel != null) {
      channel.committed.add(new CommitEvents.Committed(c.lineage(), c.epoch(), c.sequence()));
    }
  }

  /** A lost transaction: fails the request, unless it may be ignored; returns whether to go on. */
  private boolean lost(CommitRequest<Committable> request, Committable c, Slot slot, Object handle, EncodedHandle h) {
    TransactionLostException e = CommitFailures.lost(spec, slot.name, slot.timeout, handle, h.begunAtMillis(),
        c.checkpointId(), c.subtask());
    if (e == null) {
      return true;
    }
    request.signalFailedWithUnknownReason(e);
    return false;
  }

  /** Closes every participant; failures are logged, only an {@link Error} is thrown. */
  @Override
  public void close() {
    if (channel != null) {
      CommitEvents.close(key, channel);
    }
    Resources.throwErrors(closeParticipants(null));
  }

  private Throwable closeParticipants(Throwable first) {
    List<Slot> all = new ArrayList<>(slots.values());
    slots.clear();
    for (Slot slot : all) {
      first = Resources.close(slot.participant, slot.name, first);
    }
    return first;
  }
}
