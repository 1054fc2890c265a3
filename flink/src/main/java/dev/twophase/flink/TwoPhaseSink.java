package dev.twophase.flink;

import dev.twophase.FaultInjector;
import dev.twophase.Participant;
import dev.twophase.TransactionNames;
import dev.twophase.Writable;
import dev.twophase.annotation.Experimental;
import dev.twophase.flink.internal.CommitEvents;
import dev.twophase.flink.internal.Committable;
import dev.twophase.flink.internal.CommittableSerializer;
import dev.twophase.flink.internal.LineageState;
import dev.twophase.flink.internal.LineageStateSerializer;
import dev.twophase.flink.internal.ParticipantSpec;
import dev.twophase.flink.internal.SinkSpec;
import dev.twophase.flink.internal.TwoPhaseCommitter;
import dev.twophase.flink.internal.TwoPhaseWriter;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Runs twophase participants as an exactly-once Flink sink (Sink V2 with a committer and writer
 * state), so that a job that outgrows one machine keeps its participants: the same
 * {@link Participant}s that a {@link dev.twophase.Coordinator} drives, with Flink's checkpoints as
 * the decisions.
 *
 * <pre>{@code
 * TwoPhaseSink<String> sink = TwoPhaseSink.<String>builder("orders")
 *     .participant("files", () -> FileParticipant.builder(Path.of(dir), RecordEncoders.lines()).build())
 *     .build();
 * env.enableCheckpointing(10_000);
 * stream.sinkTo(sink).uid("orders-sink");
 * }</pre>
 *
 * <h2>How it maps onto Flink</h2>
 * <ul>
 *   <li>Each writer subtask begins one transaction per participant, writes the records into them,
 *       and before each checkpoint barrier pre-commits them all and emits <em>one</em> committable
 *       with every participant's handle. A failed pre-commit aborts them all and fails the task.
 *   <li>Flink's committer commits a checkpoint's committables once the checkpoint is complete: per
 *       committable, every participant in registration order; the committables of the writer it is
 *       chained to (Flink's default) with {@link Participant#commit} on the writer's participants,
 *       any other with {@link Participant#recoverAndCommit} from the handle alone. A lost
 *       transaction fails the job with a {@link dev.twophase.TransactionLostException}; it is never
 *       dropped silently.
 *   <li>When the committer is chained to the writer, participants that implement
 *       {@link dev.twophase.RetirementListener} are told when their handles are retired.
 *   <li>The writer state holds each participant's context and open handle, and what the subtask's
 *       transaction names need; committables and state are written by the participants' own
 *       {@link dev.twophase.Codec}s, never by Java serialization.
 *   <li>On restore, also at another parallelism, each subtask aborts the transactions the state
 *       holds as open ({@link Participant#recoverAndAbort}), and has each participant abort what the
 *       state cannot name ({@link Participant#finishRecoveringContext}); Flink's committer commits
 *       the pending committables.
 *   <li>At the end of a bounded input, the last transactions are pre-committed and committed by the
 *       final checkpoint.
 * </ul>
 *
 * <p>Transaction names are {@code <sinkId>-<participant>-<lineage>-<epoch>-<sequence>}: a lineage
 * per chain of subtask states, an epoch per attempt. Give every sink writing to the same resources
 * its own sink id, and keep it across restores (the restored state must carry the same id).
 * Exactly once needs checkpointing; see {@code docs/flink.md} for the rest.
 *
 * <p>The committable and writer state types are internal; use the sink through {@link Sink}.
 *
 * @param <IN> the type of the records the sink takes
 */
@Experimental
public final class TwoPhaseSink<IN>
    implements Sink<IN>, SupportsWriterState<IN, LineageState>, SupportsCommitter<Committable> {

  private static final long serialVersionUID = 1L;

  private final SinkSpec spec;

  private TwoPhaseSink(SinkSpec spec) {
    this.spec = spec;
  }

  /**
   * Starts a sink whose transaction names begin with {@code sinkId}. The id must be unique among the
   * sinks and jobs that write to the same resources, and stay the same across restores.
   */
  public static <IN> Builder<IN> builder(String sinkId) {
    return new Builder<>(sinkId);
  }

  /** The sink id. */
  public String sinkId() {
    return spec.sinkId();
  }

  /** The participants' names, in registration order (the order they pre-commit and commit in). */
  public List<String> participantNames() {
    return spec.participantNames();
  }

  @Override
  public TwoPhaseWriter<IN> createWriter(WriterInitContext context) throws IOException {
    return TwoPhaseWriter.open(spec, context, List.of());
  }

  @Override
  public StatefulSinkWriter<IN, LineageState> restoreWriter(
      WriterInitContext context, Collection<LineageState> recoveredState) throws IOException {
    return TwoPhaseWriter.open(spec, context, recoveredState);
  }

  @Override
  public SimpleVersionedSerializer<LineageState> getWriterStateSerializer() {
    return new LineageStateSerializer();
  }

  @Override
  public Committer<Committable> createCommitter(CommitterInitContext context) {
    return new TwoPhaseCommitter(spec, new CommitEvents.Key(context.getJobInfo().getJobId().toString(), spec.sinkId(),
        context.getTaskInfo().getTaskName(), context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getAttemptNumber()));
  }

  @Override
  public SimpleVersionedSerializer<Committable> getCommittableSerializer() {
    return new CommittableSerializer();
  }

  @Override
  public String toString() {
    return "TwoPhaseSink[" + spec.sinkId() + ", participants " + spec.participantNames() + "]";
  }

  /**
   * Builds a {@link TwoPhaseSink}: its participants, and what to do with transactions that can no
   * longer be committed and with decisions found lost.
   *
   * @param <IN> the sink's input type
   */
  @Experimental
  public static final class Builder<IN> {
    private final String sinkId;
    private final List<ParticipantSpec> participants = new ArrayList<>();
    private Duration transactionTimeout;
    private boolean ignoreFailuresAfterTransactionTimeout;
    private boolean continueAfterLostDecision;
    private boolean continueAfterUnknownCommitOutcome;
    private Clock clock = Clock.systemUTC();
    private SerializableSupplier<FaultInjector> faults;

    private Builder(String sinkId) {
      Objects.requireNonNull(sinkId, "sinkId");
      TransactionNames.safe(sinkId); // refuses an empty id
      this.sinkId = sinkId;
    }

    /**
     * Adds a participant that takes the sink's records as they are. Participants pre-commit and
     * commit in the order they are added.
     *
     * @param name    unique within the sink, kept across restores: part of the transaction names and
     *                the key of the participant's state
     * @param factory creates the participant on the task managers (see {@link ParticipantFactory})
     */
    @SuppressWarnings("try") // P is AutoCloseable (a Participant); the builder never closes one
    public <T, P extends Participant<T, ?> & Writable<? super IN, T>> Builder<IN> participant(
        String name, ParticipantFactory<P> factory) {
      return add(name, factory, InputMapper.<IN>identity());
    }

    /**
     * Adds a participant that takes what {@code mapper} makes of each record (nothing where it
     * returns null). Participants pre-commit and commit in the order they are added.
     *
     * @param name    unique within the sink, kept across restores: part of the transaction names and
     *                the key of the participant's state
     * @param factory creates the participant on the task managers (see {@link ParticipantFactory})
     * @param mapper  the participant's record for each of the sink's records
     */
    @SuppressWarnings("try") // P is AutoCloseable (a Participant); the builder never closes one
    public <OUT, T, P extends Participant<T, ?> & Writable<OUT, T>> Builder<IN> participant(
        String name, ParticipantFactory<P> factory, InputMapper<? super IN, ? extends OUT> mapper) {
      return add(name, factory, mapper);
    }

    private Builder<IN> add(String name, ParticipantFactory<?> factory, InputMapper<?, ?> mapper) {
      Objects.requireNonNull(name, "name");
      TransactionNames.safe(name); // refuses an empty name
      for (ParticipantSpec p : participants) {
        if (p.name().equals(name)) {
          throw new IllegalArgumentException("participant '" + name + "' is already in sink '" + sinkId + "'");
        }
      }
      participants.add(new ParticipantSpec(name, Objects.requireNonNull(factory, "factory"),
          Objects.requireNonNull(mapper, "mapper")));
      return this;
    }

    /**
     * The transaction timeout of participants that declare none
     * ({@link Participant#transactionTimeout()}), for
     * {@link #ignoreFailuresAfterTransactionTimeout()} and for the messages of lost transactions.
     */
    public Builder<IN> transactionTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "transactionTimeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("transactionTimeout must be positive, was " + timeout);
      }
      this.transactionTimeout = timeout;
      return this;
    }

    /**
     * Data loss by choice, as in the coordinators: a transaction that its participant reports
     * {@code LOST} and that is older than its timeout is logged at ERROR and dropped instead of
     * failing the job. Off by default: a lost transaction fails the job with a
     * {@link dev.twophase.TransactionLostException}.
     */
    public Builder<IN> ignoreFailuresAfterTransactionTimeout() {
      this.ignoreFailuresAfterTransactionTimeout = true;
      return this;
    }

    /**
     * Duplicates by choice, as in the coordinators: when a restored writer finds committed a
     * transaction the restored state holds as open (an older savepoint or checkpoint was restored
     * after a later one was committed), it logs an ERROR and goes on, and the records since the
     * restored checkpoint are written again. Off by default: the task fails with a
     * {@link dev.twophase.DecisionLostException}.
     */
    public Builder<IN> continueAfterLostDecision() {
      this.continueAfterLostDecision = true;
      return this;
    }

    /**
     * Possible loss by choice, for the one case the sink cannot settle by itself: a participant
     * cannot tell whether a decided transaction committed, and asking again cannot tell either
     * ({@link dev.twophase.CommitOutcomeUnknownException}; the Kafka participant throws it when the
     * transaction's id moved on, or the broker forgot it). With this option such a transaction is
     * logged at ERROR and taken as done. Off by default: the job fails without restarting, since
     * every restore would ask again, and the message says how to decide. Turn it on to restart the
     * job after an operator checked the resource, and off again afterwards.
     */
    public Builder<IN> continueAfterUnknownCommitOutcome() {
      this.continueAfterUnknownCommitOutcome = true;
      return this;
    }

    /**
     * The wall clock the sink ages transactions by, for {@link #transactionTimeout(Duration)} and
     * the messages of lost transactions; {@link Clock#systemUTC()} by default. It is shipped to
     * the task managers with the sink, so it must be serializable.
     *
     * @throws IllegalArgumentException if {@code clock} is not serializable
     */
    public Builder<IN> clock(Clock clock) {
      Objects.requireNonNull(clock, "clock");
      requireSerializable(clock, "the clock of sink '" + sinkId + "'");
      this.clock = clock;
      return this;
    }

    /**
     * Makes the {@link FaultInjector} each writer and committer of the sink calls at the protocol
     * points the sink reaches ({@link FlinkPoints}); none by default. A crash test halts a task
     * manager there, for example with
     * {@code faultInjector(() -> CrashInjector.parse(System.getProperty("crash"), FlinkPoints.all()))},
     * and recovers from the job's last checkpoint in a new one. Each writer and committer makes its
     * own injector, so hits are counted per task.
     */
    public Builder<IN> faultInjector(SerializableSupplier<FaultInjector> injector) {
      this.faults = Objects.requireNonNull(injector, "injector");
      requireSerializable(injector, "the fault injector supplier of sink '" + sinkId + "'");
      return this;
    }

    /**
     * Builds the sink.
     *
     * @throws IllegalStateException    if no participant was added
     * @throws IllegalArgumentException if a participant's factory or mapper is not serializable
     */
    public TwoPhaseSink<IN> build() {
      if (participants.isEmpty()) {
        throw new IllegalStateException("sink '" + sinkId + "' has no participant");
      }
      if (ignoreFailuresAfterTransactionTimeout && transactionTimeout == null) {
        // a participant's own timeout may still apply; without any, nothing is ever ignored
        org.slf4j.LoggerFactory.getLogger(TwoPhaseSink.class).info("sink {}: ignoreFailuresAfterTransactionTimeout "
            + "applies only to participants that declare a transaction timeout", sinkId);
      }
      Set<String> checked = new HashSet<>();
      for (ParticipantSpec p : participants) {
        if (checked.add(p.name())) {
          requireSerializable(p, "the factory or mapper of participant '" + p.name() + "'");
        }
      }
      return new TwoPhaseSink<>(new SinkSpec(sinkId, participants, transactionTimeout,
          ignoreFailuresAfterTransactionTimeout, continueAfterLostDecision, continueAfterUnknownCommitOutcome, clock,
          faults));
    }

    /** Flink ships the sink by Java serialization: fail here, not on the cluster. */
    private void requireSerializable(Object value, String what) {
      try (ObjectOutputStream out = new ObjectOutputStream(OutputStream.nullOutputStream())) {
        out.writeObject(value);
      } catch (NotSerializableException e) {
        throw new IllegalArgumentException(what + " is not serializable (" + e.getMessage() + " is not): Flink "
            + "ships the sink to its task managers by Java serialization. Capture only serializable values, a "
            + "directory as a String rather than a Path", e);
      } catch (IOException e) {
        throw new IllegalArgumentException(what + " cannot be serialized: " + e, e);
      }
    }
  }
}
