package dev.twophase.flink.internal;

import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.ProtocolPoint;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionLostException;
import dev.twophase.annotation.Internal;
import dev.twophase.internal.engine.FrontEnd;
import dev.twophase.internal.engine.Member;
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
 *       restore would ask again (see {@link UnknownOutcomes}); with
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
  private final FrontEnd frontEnd;
  /** The committer's own participants, by name, for the committables of no live writer. */
  private final Map<String, Member<Object, Object>> members = new LinkedHashMap<>();
  /** Where committed committables are reported to the chained writer, or null. */
  private final CommitEvents.Key key;
  private final CommitEvents.Channel channel;

  /** A committer that reports to no writer. */
  public TwoPhaseCommitter(SinkSpec spec) {
    this(spec, null);
  }

  /**
   * Creates a participant per spec (whatever fails, those created are closed) and, if {@code key}
   * is given, opens the channel that reports committed committables to the chained writer.
   */
  public TwoPhaseCommitter(SinkSpec spec, CommitEvents.Key key) {
    this.spec = spec;
    this.key = key;
    this.frontEnd = Members.frontEnd(spec, -1, LOG);
    for (Member<Object, Object> member : Members.create(spec, frontEnd, false)) {
      members.put(member.name(), member);
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
      Member<Object, Object> own = members.get(h.participant());
      if (own == null) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": " + c
            + " holds a handle of participant '" + h.participant() + "', which the sink does not have ("
            + members.keySet() + "); add it again, with the same name, to commit it. " + WriterRecovery.REMOVING,
            null, c.checkpointId(), h.participant()));
        return;
      }
      if (i > 0) {
        frontEnd.reached(ProtocolPoint.BETWEEN_COMMITS);
      }
      // The writer's own committables are committed by its participants, live; others (restored,
      // or without a chained writer) from the handle by the committer's participants.
      CommitEvents.Writer writer = channel == null ? null : channel.writer;
      Member<Object, Object> live = writer != null && writer.lineage().equals(c.lineage()) && writer.epoch() == c.epoch()
          ? writer.members().get(h.participant()) : null;
      Member<Object, Object> member = live != null ? live : own;
      Object handle;
      try {
        handle = member.decode(h.bytes(), h.codecVersion(), c.toString());
      } catch (RuntimeException | Error e) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": participant '"
            + own.name() + "' cannot decode its handle of codec version " + h.codecVersion() + " in " + c + ": " + e,
            e, c.checkpointId(), own.name()));
        return;
      }
      Member.Committed committed;
      try {
        committed = member.commit(handle, c.checkpointId(), h.begunAtMillis(),
            live != null ? Member.CommitCall.LIVE : Member.CommitCall.RESTORED);
      } catch (CommitOutcomeUnknownException e) {
        request.signalFailedWithUnknownReason(UnknownOutcomes.failure(spec, own.name(), handle, c.checkpointId(), e));
        return;
      } catch (TransactionLostException e) {
        LOG.error("{}", e.getMessage());
        request.signalFailedWithUnknownReason(e);
        return;
      } catch (RetriableTwoPhaseException e) {
        if (e.getCause() instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
          // The task is being cancelled: no retry now; the committable stays in the state.
          Thread.currentThread().interrupt();
          InterruptedException interrupted = new InterruptedException("sink " + spec.sinkId() + ": commit of "
              + handle + " (checkpoint ~" + c.checkpointId() + ") in participant '" + own.name() + "' interrupted");
          interrupted.initCause(e);
          throw interrupted;
        }
        LOG.warn("sink {}: commit of {} (checkpoint ~{}, retry {}) failed in participant '{}'; retried",
            spec.sinkId(), handle, c.checkpointId(), request.getNumberOfRetries(), own.name(), e);
        if (i == 0) {
          request.retryLater();
        } else {
          request.updateAndRetryLater(c.withoutFirst(i));
        }
        return;
      } catch (RuntimeException | Error e) {
        request.signalFailedWithUnknownReason(new FatalTwoPhaseException("sink " + spec.sinkId() + ": commit of "
            + handle + " (checkpoint ~" + c.checkpointId() + ") failed in participant '" + own.name() + "' for a "
            + "reason retrying will not fix: " + e + "; the job fails and commits it again when it restores",
            e, c.checkpointId(), own.name()));
        return;
      }
      if (committed != Member.Committed.ALREADY_COMMITTED) {
        allAlready = false;
      }
    }
    frontEnd.reached(ProtocolPoint.AFTER_COMMITS);
    if (allAlready && !handles.isEmpty()) {
      request.signalAlreadyCommitted();
    }
    if (channel != null) {
      channel.committed.add(new CommitEvents.Committed(c.lineage(), c.epoch(), c.sequence()));
    }
  }

  /** Closes every participant; failures are logged, only an {@link Error} is thrown. */
  @Override
  public void close() {
    if (channel != null) {
      CommitEvents.close(key, channel);
    }
    List<Member<Object, Object>> all = new ArrayList<>(members.values());
    members.clear();
    Resources.throwErrors(Resources.closeAll(all, null));
  }
}
