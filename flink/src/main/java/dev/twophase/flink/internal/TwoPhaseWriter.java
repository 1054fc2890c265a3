package dev.twophase.flink.internal;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.annotation.Internal;
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
  private final WriterSlot[] slots;
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
  /** Each slot's encoded context, or null: contexts do not change after the start. */
  private final byte[][] encodedContexts;

  /** The sequence of the open transactions, or of the next ones. */
  private long sequence;
  /** The checkpoint the open (or next) transactions are expected to be pre-committed in. */
  private long expectedCheckpointId;
  private boolean open;
  private boolean endOfInput;
  private Throwable failure;
  private boolean closed;

  private TwoPhaseWriter(SinkSpec spec, List<WriterSlot> slots, int subtask, int parallelism, String lineage,
      long epoch, long restoredCheckpointId, Counter recordsSent, CommitEvents.Channel commits,
      boolean ownStateOnly) throws Exception {
    this.sinkId = spec.sinkId();
    this.recordsSent = recordsSent;
    this.slots = slots.toArray(new WriterSlot[0]);
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.retirements = Retirements.of(commits, sinkId, lineage, epoch, this.slots, ownStateOnly);
    this.commits = commits;
    this.lineage = lineage;
    this.epoch = epoch;
    this.expectedCheckpointId = restoredCheckpointId + 1;
    this.encodedContexts = new byte[this.slots.length][];
    for (int i = 0; i < this.slots.length; i++) {
      WriterSlot s = this.slots[i];
      encodedContexts[i] = s.context.isPresent() ? s.contextCodec.encode(s.context.get()) : null;
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
    List<WriterSlot> slots = new ArrayList<>();
    try {
      List<LineageState> states = WriterRecovery.check(spec, restored);
      String lineage = states.isEmpty() ? Lineages.fresh(restoredCheckpointId, subtask) : states.get(0).lineage();
      long above = 0;
      for (LineageState s : states) {
        above = Math.max(above, s.epoch());
      }
      long epoch = Lineages.newEpoch(above, attempt);
      for (ParticipantSpec p : spec.participants()) {
        slots.add(newSlot(spec, p, lineage));
      }
      new WriterRecovery(spec, slots, epoch, restoredCheckpointId, subtask).run(states);
      boolean ownStateOnly = states.isEmpty()
          || (states.size() == 1 && states.get(0).subtask() == subtask && states.get(0).parallelism() == parallelism);
      TwoPhaseWriter<IN> writer = new TwoPhaseWriter<>(spec, slots, subtask, parallelism, lineage, epoch,
          restoredCheckpointId, recordsSent, commits, ownStateOnly);
      writer.beginAll();
      writer.linkCommitter();
      return writer;
    } catch (Exception | Error e) {
      Resources.closeAll(slots, e);
      throw Resources.uncheckedOrIO(e, "sink " + spec.sinkId() + " subtask " + subtask + " could not start");
    }
  }

  private static WriterSlot newSlot(SinkSpec spec, ParticipantSpec p, String lineage) throws Exception {
    Participant<?, ?> participant = p.factory().create();
    if (participant == null) {
      throw new FatalTwoPhaseException("the factory of participant '" + p.name() + "' returned null");
    }
    try {
      return new WriterSlot(p, participant, spec.sinkId(), lineage);
    } catch (RuntimeException | Error e) {
      Resources.closeQuietly(participant, e);
      throw e;
    }
  }

  @Override
  public void write(IN element, Context context) throws IOException {
    if (!open) {
      throw notOpen("write");
    }
    for (WriterSlot slot : slots) {
      slot.write(element);
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
    for (WriterSlot slot : slots) {
      try {
        slot.participant.finishProcessing(slot.current);
      } catch (Exception | Error e) {
        throw fail(e, null, "finishProcessing of " + slot.current + " failed in participant '" + slot.name + "'");
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
    Object[] preCommitted = new Object[slots.length];
    List<EncodedHandle> handles = new ArrayList<>(slots.length);
    for (int i = 0; i < slots.length; i++) {
      WriterSlot slot = slots[i];
      try {
        Object handle = slot.participant.preCommit(slot.current);
        if (handle == null) {
          throw new FatalTwoPhaseException("participant '" + slot.name + "' returned null from preCommit("
              + slot.current + ")");
        }
        preCommitted[i] = handle;
        handles.add(slot.encode(handle, slot.currentBegunAt));
      } catch (Exception | Error e) {
        throw fail(e, preCommitted, "pre-commit of " + slot.current + " failed in participant '" + slot.name
            + "'; every transaction of this checkpoint was aborted, none of its records is visible, and the job "
            + "replays from its last checkpoint");
      }
    }
    Committable committable = new Committable(expectedCheckpointId, subtask, lineage, epoch, sequence, handles);
    if (retirements != null) {
      retirements.emitted(sequence, preCommitted, handles);
    }
    for (WriterSlot slot : slots) {
      slot.clearCurrent();
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
        for (int i = 0; i < slots.length; i++) {
          suppressed = abort(slots[i], preCommitted[i], suppressed);
        }
        IOException failure = fail(e, null, "beginning the transactions after checkpoint ~"
            + committable.checkpointId() + " failed");
        if (suppressed != null) {
          failure.addSuppressed(suppressed);
        }
        throw failure;
      }
    }
    return List.of(committable);
  }

  @Override
  public List<LineageState> snapshotState(long checkpointId) throws IOException {
    ensureUsable("snapshotState");
    expectedCheckpointId = checkpointId + 1;
    List<ParticipantState> participants = new ArrayList<>(slots.length);
    for (int i = 0; i < slots.length; i++) {
      WriterSlot slot = slots[i];
      EncodedHandle openHandle = null;
      if (open) {
        try {
          openHandle = slot.encode(slot.current, slot.currentBegunAt);
        } catch (Exception e) {
          throw fail(e, null, "participant '" + slot.name + "' could not encode its open handle " + slot.current);
        }
      }
      participants.add(new ParticipantState(slot.name, slot.contextCodec.version(), encodedContexts[i], openHandle,
          retirements == null ? List.of() : retirements.pending(slot)));
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
    Resources.throwErrors(Resources.closeAll(List.of(slots), first));
  }

  // ------------------------------------------------------------------ internals

  /** Lets the chained committer commit this writer's committables with its participants. */
  private void linkCommitter() {
    if (commits != null) {
      Map<String, WriterSlot> byName = new HashMap<>();
      for (WriterSlot slot : slots) {
        byName.put(slot.name, slot);
      }
      commits.writer = new CommitEvents.Writer(lineage, epoch, Map.copyOf(byName));
    }
  }

  private void beginAll() throws Exception {
    for (WriterSlot slot : slots) {
      slot.begin(new Contexts.Transaction<>(
          sinkId, slot.name, slot.prefix, epoch, expectedCheckpointId, sequence, slot.context));
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
   * Aborts every slot's transaction of the current sequence: by its pre-commit handle where
   * {@code preCommitted} has one (it names what the transaction wrote), else by its current handle;
   * returns the first failure.
   */
  private Throwable abortCurrent(Object[] preCommitted, Throwable first) {
    for (int i = 0; i < slots.length; i++) {
      WriterSlot slot = slots[i];
      Object handle = preCommitted != null && preCommitted[i] != null ? preCommitted[i] : slot.current;
      if (handle != null) {
        first = abort(slot, handle, first);
      }
      slot.clearCurrent();
    }
    return first;
  }

  private Throwable abort(WriterSlot slot, Object handle, Throwable first) {
    try {
      slot.participant.abort(handle);
    } catch (Exception | Error e) {
      LOG.warn("sink {} subtask {}: abort of {} failed in participant '{}'; the next start aborts it",
          sinkId, subtask, handle, slot.name, e);
      first = Resources.add(first, e);
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
