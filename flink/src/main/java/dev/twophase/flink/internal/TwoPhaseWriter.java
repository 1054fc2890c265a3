package dev.twophase.flink.internal;

import dev.twophase.ProtocolPoint;
import dev.twophase.TransactionNames;
import dev.twophase.annotation.Internal;
import dev.twophase.flink.InputMapper;
import dev.twophase.internal.engine.FrontEnd;
import dev.twophase.internal.engine.Member;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's writer: one per subtask and attempt, on the task thread.
 *
 * <ul>
 *   <li><b>Start</b> ({@link #open}): creates the participants, recovers (see
 *       {@link WriterRecovery}) and begins every participant's first transaction.
 *   <li><b>write</b>: maps each record for each participant and writes it into the participant's
 *       current transaction.
 *   <li><b>flush(endOfInput = true)</b>: {@code finishProcessing} of each current transaction.
 *   <li><b>prepareCommit</b> (Flink calls it right before each checkpoint barrier and at end of
 *       input): pre-commits every participant's transaction, in registration order, and returns
 *       <em>one</em> committable with all their handles; then, unless the input ended, begins the
 *       next transactions. A failed pre-commit aborts every transaction of the checkpoint and
 *       fails the task: no committable leaves the writer, so no participant's records of it become
 *       visible, and Flink replays from the last checkpoint.
 *   <li><b>snapshotState</b>: the lineage, the epoch, the next sequence, and per participant its
 *       context, open handle and pending handles (pre-committed, not yet retired), encoded by the
 *       participant's codecs.
 *   <li><b>close</b>: aborts the open transactions (pre-committed ones belong to committables and
 *       are left to the committer) and closes the participants.
 * </ul>
 *
 * After a failed pre-commit, begin or end of input the writer refuses every further call: the
 * records written since the last checkpoint are gone with the aborted transactions, so the task
 * must fail and replay.
 *
 * @param <IN> the sink's input type
 */
@Internal
public final class TwoPhaseWriter<IN>
    implements CommittingSinkWriter<IN, Committable>, StatefulSinkWriter<IN, LineageState> {

  private static final Logger LOG = LoggerFactory.getLogger(TwoPhaseWriter.class);

  private final String sinkId;
  /** The participants, in registration order, with the mapping of the sink's records into each. */
  private final List<Member<Object, Object>> members;
  private final List<InputMapper<Object, Object>> mappers;
  private final FrontEnd frontEnd;
  private final int subtask;
  private final int parallelism;
  /** Retirement of handles from the chained committer's reports, or null. */
  private final Retirements retirements;
  /** The chained committer's channel, or null. */
  private final CommitEvents.Channel commits;
  private final String lineage;
  private final long epoch;
  /** Flink's numRecordsSend: the sink's input records written (each once, whatever the participants). */
  private final Counter recordsSent;
  /** Each member's encoded context, or null: contexts do not change after the start. */
  private final byte[][] encodedContexts;

  /** The sequence of the open transactions, or of the next ones. */
  private long sequence;
  /** The checkpoint the open (or next) transactions are expected to be pre-committed in. */
  private long expectedCheckpointId;
  private boolean open;
  private boolean endOfInput;
  private Throwable failure;
  private boolean closed;

  @SuppressWarnings("unchecked")
  private TwoPhaseWriter(SinkSpec spec, FrontEnd frontEnd, List<Member<Object, Object>> members, int subtask,
      int parallelism, String lineage, long epoch, long restoredCheckpointId, Counter recordsSent,
      CommitEvents.Channel commits, boolean ownStateOnly) {
    this.sinkId = spec.sinkId();
    this.frontEnd = frontEnd;
    this.recordsSent = recordsSent;
    this.members = List.copyOf(members);
    List<InputMapper<Object, Object>> mappers = new ArrayList<>(members.size());
    for (ParticipantSpec p : spec.participants()) {
      mappers.add((InputMapper<Object, Object>) p.mapper());
    }
    this.mappers = List.copyOf(mappers);
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.retirements = Retirements.of(commits, sinkId, lineage, epoch, this.members, ownStateOnly);
    this.commits = commits;
    this.lineage = lineage;
    this.epoch = epoch;
    this.expectedCheckpointId = restoredCheckpointId + 1;
    this.encodedContexts = new byte[members.size()][];
    for (int i = 0; i < encodedContexts.length; i++) {
      encodedContexts[i] = members.get(i).encodeUserContext();
    }
  }

  /**
   * Creates the participants, recovers from {@code restored} (empty on a fresh start, or for a
   * subtask that received no state) and begins the first transactions. Whatever fails, what was
   * created is closed.
   */
  public static <IN> TwoPhaseWriter<IN> open(SinkSpec spec, WriterInitContext context, Collection<LineageState> restored)
      throws IOException {
    int subtask = context.getTaskInfo().getIndexOfThisSubtask();
    int attempt = context.getTaskInfo().getAttemptNumber();
    CommitEvents.Key key = new CommitEvents.Key(context.getJobInfo().getJobId().toString(), spec.sinkId(),
        context.getTaskInfo().getTaskName(), subtask, attempt);
    return open(spec, subtask, context.getTaskInfo().getNumberOfParallelSubtasks(), attempt,
        context.getRestoredCheckpointId().orElse(0), context.metricGroup().getNumRecordsSendCounter(),
        CommitEvents.find(key), restored);
  }

  /**
   * As {@link #open(SinkSpec, WriterInitContext, Collection)}, with what it takes of the context:
   * {@code commits} is the chained committer's channel, or null.
   */
  public static <IN> TwoPhaseWriter<IN> open(SinkSpec spec, int subtask, int parallelism, int attempt,
      long restoredCheckpointId, Counter recordsSent, CommitEvents.Channel commits, Collection<LineageState> restored)
      throws IOException {
    List<Member<Object, Object>> members = List.of();
    try {
      List<LineageState> states = WriterRecovery.check(spec, restored);
      String lineage = states.isEmpty() ? Lineages.fresh(restoredCheckpointId, subtask) : states.get(0).lineage();
      long above = 0;
      for (LineageState s : states) {
        above = Math.max(above, s.epoch());
      }
      long epoch = Lineages.newEpoch(above, attempt, spec.clock());
      FrontEnd frontEnd = Members.frontEnd(spec, subtask, LOG);
      members = Members.create(spec, frontEnd, true);
      for (Member<Object, Object> member : members) {
        member.incarnation(TransactionNames.prefix(spec.sinkId(), member.name(), lineage), epoch, false);
      }
      new WriterRecovery(spec, frontEnd, members, epoch, restoredCheckpointId, subtask).run(states);
      boolean ownStateOnly = states.isEmpty()
          || (states.size() == 1 && states.get(0).subtask() == subtask && states.get(0).parallelism() == parallelism);
      TwoPhaseWriter<IN> writer = new TwoPhaseWriter<>(spec, frontEnd, members, subtask, parallelism, lineage,
          epoch, restoredCheckpointId, recordsSent, commits, ownStateOnly);
      writer.beginAll();
      writer.linkCommitter();
      return writer;
    } catch (Exception | Error e) {
      Resources.closeAll(members, e);
      throw Resources.uncheckedOrIO(e, "sink " + spec.sinkId() + " subtask " + subtask + " could not start");
    }
  }

  @Override
  public void write(IN element, Context context) throws IOException {
    if (!open) {
      throw notOpen("write");
    }
    for (int i = 0; i < members.size(); i++) {
      Member<Object, Object> member = members.get(i);
      try {
        Object out = mappers.get(i).map(element);
        if (out != null) {
          member.writer().write(out);
        }
      } catch (IOException | RuntimeException e) {
        throw new IOException("participant '" + member.name() + "' could not take a record into transaction "
            + member.current() + ": " + e.getMessage(), e);
      } catch (Exception e) {
        throw new IOException("participant '" + member.name() + "' could not take a record into transaction "
            + member.current() + ": " + e, e);
      }
    }
    recordsSent.inc();
  }

  @Override
  public void flush(boolean endOfInput) throws IOException {
    if (!endOfInput || this.endOfInput) {
      return;
    }
    ensureUsable("flush");
    this.endOfInput = true;
    if (!open) {
      return;
    }
    for (Member<Object, Object> member : members) {
      try {
        member.finishProcessing(expectedCheckpointId);
      } catch (RuntimeException | Error e) {
        throw fail(e, null, "finishProcessing of " + member.current() + " failed in participant '" + member.name()
            + "'");
      }
    }
  }

  @Override
  public Collection<Committable> prepareCommit() throws IOException {
    ensureUsable("prepareCommit");
    if (!open) {
      return List.of(); // the input ended and its last transactions were pre-committed already
    }
    if (retirements != null) {
      retirements.drain(sequence);
    }
    frontEnd.reached(ProtocolPoint.BEFORE_PRE_COMMIT);
    int n = members.size();
    Object[] preCommitted = new Object[n];
    List<EncodedHandle> handles = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Member<Object, Object> member = members.get(i);
      try {
        Object handle = member.preCommit();
        preCommitted[i] = handle;
        handles.add(new EncodedHandle(member.name(), member.transactionCodec().version(), member.currentBegunAt(),
            member.encode(handle)));
        if (i < n - 1) {
          frontEnd.reached(ProtocolPoint.BETWEEN_PRE_COMMITS);
        }
      } catch (Exception | Error e) {
        throw fail(e, preCommitted, "pre-commit of " + member.current() + " failed in participant '" + member.name()
            + "'; every transaction of this checkpoint was aborted, none of its records is visible, and the job "
            + "replays from its last checkpoint");
      }
    }
    Committable committable = new Committable(expectedCheckpointId, subtask, lineage, epoch, sequence, handles);
    if (retirements != null) {
      retirements.emitted(sequence, preCommitted, handles);
    }
    for (Member<Object, Object> member : members) {
      member.clearCurrent();
    }
    open = false;
    sequence++;
    expectedCheckpointId++;
    if (!endOfInput) {
      try {
        beginAll();
      } catch (Exception | Error e) {
        // The committable never leaves: abort what it holds, then what was begun.
        Throwable suppressed = null;
        for (int i = 0; i < n; i++) {
          suppressed = Resources.add(suppressed, members.get(i).abortQuietly(preCommitted[i], committable.checkpointId()));
        }
        IOException failure = fail(e, null, "beginning the transactions after checkpoint ~"
            + committable.checkpointId() + " failed");
        if (suppressed != null) {
          failure.addSuppressed(suppressed);
        }
        throw failure;
      }
    }
    frontEnd.reached(ProtocolPoint.AFTER_PRE_COMMITS);
    return List.of(committable);
  }

  @Override
  public List<LineageState> snapshotState(long checkpointId) throws IOException {
    ensureUsable("snapshotState");
    expectedCheckpointId = checkpointId + 1;
    List<ParticipantState> participants = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      Member<Object, Object> member = members.get(i);
      EncodedHandle openHandle = null;
      if (open) {
        try {
          openHandle = new EncodedHandle(member.name(), member.transactionCodec().version(), member.currentBegunAt(),
              member.encode(member.current()));
        } catch (RuntimeException e) {
          throw fail(e, null, "participant '" + member.name() + "' could not encode its open handle "
              + member.current());
        }
      }
      participants.add(new ParticipantState(member.name(), member.contextCodec().version(), encodedContexts[i],
          openHandle, retirements == null ? List.of() : retirements.pending(member)));
    }
    return List.of(new LineageState(sinkId, lineage, epoch, sequence, subtask, parallelism, participants));
  }

  /**
   * Aborts the open transactions and closes every participant, whatever fails. Failures are logged;
   * only an {@link Error} is thrown (see {@link Resources#throwErrors}).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (commits != null) {
      commits.writer = null;
    }
    Throwable first = open ? abortCurrent(null, null) : null;
    open = false;
    Resources.throwErrors(Resources.closeAll(members, first));
  }

  // ------------------------------------------------------------------ internals

  /** Lets the chained committer commit this writer's committables with its participants. */
  private void linkCommitter() {
    if (commits != null) {
      Map<String, Member<Object, Object>> byName = new HashMap<>();
      for (Member<Object, Object> member : members) {
        byName.put(member.name(), member);
      }
      commits.writer = new CommitEvents.Writer(lineage, epoch, Map.copyOf(byName));
    }
  }

  private void beginAll() {
    for (Member<Object, Object> member : members) {
      member.begin(expectedCheckpointId, sequence);
    }
    open = true;
  }

  /**
   * Makes the writer unusable, aborts the transactions of the current sequence (by the pre-commit
   * handle where there is one), and returns the exception to throw; an Error is rethrown as it is.
   */
  private IOException fail(Throwable cause, Object[] preCommitted, String message) {
    failure = cause;
    Throwable suppressed = abortCurrent(preCommitted, cause);
    open = false;
    LOG.warn("sink {} subtask {}: {}", sinkId, subtask, message, cause);
    if (cause instanceof Error error) {
      throw error;
    }
    IOException e = new IOException("sink " + sinkId + " subtask " + subtask + ": " + message + ": " + cause, cause);
    if (suppressed != null && suppressed != cause) {
      e.addSuppressed(suppressed);
    }
    return e;
  }

  /**
   * Aborts every member's transaction of the current sequence: by its pre-commit handle where
   * {@code preCommitted} has one (it names what the transaction wrote), else by its current handle;
   * returns the first failure.
   */
  private Throwable abortCurrent(Object[] preCommitted, Throwable first) {
    for (int i = 0; i < members.size(); i++) {
      Member<Object, Object> member = members.get(i);
      Object handle = preCommitted != null && preCommitted[i] != null ? preCommitted[i] : member.current();
      if (handle != null) {
        first = Resources.add(first, member.abortQuietly(handle, expectedCheckpointId));
      }
      member.clearCurrent();
    }
    return first;
  }

  private void ensureUsable(String what) throws IOException {
    if (closed) {
      throw new IOException("sink " + sinkId + " subtask " + subtask + ": " + what + " after close");
    }
    if (failure != null) {
      throw new IOException("sink " + sinkId + " subtask " + subtask + ": " + what + " refused: an earlier failure "
          + "aborted this checkpoint's transactions; the task must fail and replay", failure);
    }
  }

  private IOException notOpen(String what) {
    if (closed || failure != null) {
      try {
        ensureUsable(what);
      } catch (IOException e) {
        return e;
      }
    }
    return new IOException("sink " + sinkId + " subtask " + subtask + ": " + what + " after the end of input");
  }

  @Override
  public String toString() {
    return "TwoPhaseWriter[" + sinkId + ", subtask " + subtask + ", lineage " + lineage + ", epoch " + epoch
        + ", sequence " + sequence + (open ? ", open" : "") + (endOfInput ? ", end of input" : "") + "]";
  }
}
