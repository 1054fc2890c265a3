package dev.twophase.kafka.internal.statelog;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.StoredState;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed coordinator of a Kafka state log: its transactional producer, on which
 * {@code initTransactions()} fenced every earlier owner, and what the claim read.
 *
 * <p>An append is one transaction: the state's chunks and, riding along, the highest completion
 * mark noted since the last append; it returns once {@code commitTransaction()} did, that is once
 * every record is on all in-sync replicas ({@code acks=all}) and the commit marker is written. A
 * fenced producer makes it throw {@link FencedException}; any other failure leaves the outcome
 * unknown: {@link FatalTwoPhaseException}, the producer is closed at once (its transaction is
 * left to the broker, as a crash would leave it) and the view takes no further append. Nothing is
 * retried. Appends of one view run one at a time (a producer has one transaction at a time);
 * views of different coordinators append in parallel, each on its own producer.
 */
@Internal
public final class CoordinatorView implements StateLog.CoordinatorLog {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorView.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private enum Status { OPEN, FENCED, BROKEN, CLOSED }

  private final LogContext ctx;
  private final String coordinatorId;
  private final TopicPartition partition;
  private final String transactionalId;
  private final long epoch;
  private final Consumer<CoordinatorView> onClose;

  private final Object lock = new Object();
  @GuardedBy("lock")
  private final KafkaProducer<byte[], byte[]> producer;
  @GuardedBy("lock")
  private final Appender appender;
  @GuardedBy("lock")
  private Status status = Status.OPEN;
  @GuardedBy("lock")
  private long sequence;
  @GuardedBy("lock")
  private long writtenCompletion;
  private volatile StoredState lastState;
  private volatile long lastCompleted;

  CoordinatorView(LogContext ctx, String coordinatorId, TopicPartition partition,
      String transactionalId, KafkaProducer<byte[], byte[]> producer, long epoch,
      StoredState lastState, long lastCompleted, Consumer<CoordinatorView> onClose) {
    this.ctx = ctx;
    this.coordinatorId = coordinatorId;
    this.partition = partition;
    this.transactionalId = transactionalId;
    this.producer = producer;
    this.epoch = epoch;
    this.lastState = lastState;
    this.lastCompleted = lastCompleted;
    this.writtenCompletion = lastCompleted;
    this.onClose = onClose;
    this.appender = new Appender(producer, partition, coordinatorId, ctx.logId, epoch);
  }

  @Override
  public String coordinatorId() {
    return coordinatorId;
  }

  @Override
  public long ownerEpoch() {
    return epoch;
  }

  @Override
  public String logId() {
    return ctx.logId;
  }

  @Override
  public StoredState lastState() {
    return lastState;
  }

  @Override
  public long lastCompletedCheckpointId() {
    return lastCompleted;
  }

  /** The transactional id of this coordinator's producer. */
  public String transactionalId() {
    return transactionalId;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException also if the payload is larger than {@link
   *     StateLog#MAX_STATE_BYTES}
   */
  @Override
  public void appendState(long checkpointId, byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    if (payload.length > StateLog.MAX_STATE_BYTES) {
      throw new IllegalArgumentException("a state of " + payload.length + " bytes for coordinator '"
          + coordinatorId + "', checkpoint " + checkpointId + ", is larger than the state log "
          + "stores (StateLog.MAX_STATE_BYTES, " + StateLog.MAX_STATE_BYTES + ")");
    }
    byte[] owned = payload.clone();
    synchronized (lock) {
      checkWritable(checkpointId);
      StoredState last = lastState;
      if (last != null && checkpointId < last.checkpointId()) {
        throw new IllegalArgumentException("checkpointId " + checkpointId + " is lower than the "
            + "last one appended for coordinator '" + coordinatorId + "', " + last.checkpointId()
            + ": checkpoint ids never decrease");
      }
      long completion = lastCompleted;
      // Kafka's client waits interruptibly; the flag is held back during the append and kept.
      boolean interrupted = Thread.interrupted();
      try {
        send(checkpointId, owned, completion);
        commit(checkpointId);
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      writtenCompletion = Math.max(writtenCompletion, completion);
      lastState = new StoredState(checkpointId, owned);
    }
  }

  /**
   * Sends the chunks and the pending mark, and waits for every send. A failure here comes before
   * the commit was asked for: the transaction never commits (the next owner's claim aborts it).
   */
  @GuardedBy("lock")
  private void send(long checkpointId, byte[] owned, long completion) {
    try {
      producer.beginTransaction();
      appender.state(checkpointId, ++sequence, owned);
      if (completion > writtenCompletion) {
        appender.completion(completion);
      }
      appender.flush();
    } catch (Exception | Error e) {
      throw failed(e, checkpointId, "sending the state of checkpoint " + checkpointId, false);
    }
  }

  /** Commits; a fence reported now may come after the commit reached the broker: unknown. */
  @GuardedBy("lock")
  private void commit(long checkpointId) {
    try {
      producer.commitTransaction();
    } catch (RuntimeException | Error e) {
      throw failed(e, checkpointId, "committing the state of checkpoint " + checkpointId, true);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The mark is kept in memory and written with the next state append, or when the view is
   * closed: a crash loses the marks since the last append, which only costs an idempotent
   * re-commit at recovery.
   */
  @Override
  public void appendCompletion(long checkpointId) {
    synchronized (lock) {
      checkWritable(checkpointId);
      if (checkpointId > lastCompleted) {
        lastCompleted = checkpointId;
      }
    }
  }

  @GuardedBy("lock")
  private void checkWritable(long checkpointId) {
    if (checkpointId < 0) {
      throw new IllegalArgumentException("checkpointId must be >= 0, was " + checkpointId);
    }
    switch (status) {
      case OPEN -> { }
      case FENCED -> throw new FencedException("coordinator '" + coordinatorId + "' on state log "
          + ctx.describe() + " was claimed by another owner (its epoch " + epoch + " is "
          + "superseded): this process must stop using it and close it", null, checkpointId, null);
      case BROKEN -> throw new FatalTwoPhaseException("coordinator '" + coordinatorId + "' on "
          + "state log " + ctx.describe() + " takes no more appends: an earlier append's outcome "
          + "is unknown. Stop, and recover by opening the coordinator again", null, checkpointId,
          null);
      case CLOSED -> throw new FencedException("coordinator log '" + coordinatorId + "' on "
          + ctx.describe() + " is closed: it cannot append checkpoint " + checkpointId, null,
          checkpointId, null);
    }
  }

  /**
   * Closes the producer at once and returns what to throw (or throws {@code e} if it is an
   * {@link Error}). A fence before the commit was asked for stored nothing: {@link
   * FencedException}. Anything else, a fence during the commit too, leaves the outcome unknown.
   */
  @GuardedBy("lock")
  private RuntimeException failed(Throwable e, long checkpointId, String what,
      boolean committing) {
    producer.close(Duration.ZERO);
    boolean fenced = Failures.isFenced(e);
    if (fenced && !committing) {
      status = Status.FENCED;
      return new FencedException("coordinator '" + coordinatorId + "' on state log "
          + ctx.describe() + " was claimed by another owner (" + what + ", producer "
          + transactionalId + ", epoch " + epoch + ", fenced before the commit): nothing was "
          + "stored; this process must stop using the coordinator", e, checkpointId, null);
    }
    status = Status.BROKEN;
    if (e instanceof Error error) {
      throw error;
    }
    String cause = fenced ? "another owner claimed the coordinator while the commit was in "
        + "flight (" + e + ")" : "it failed (" + e + ")";
    return new FatalTwoPhaseException("coordinator '" + coordinatorId + "' on state log "
        + ctx.describe() + ": " + what + ": " + cause + ", so the decision is unknown: it may or "
        + "may not be durable (if it is, the next owner's claim has read it). Stop and recover: "
        + "open the coordinator again, which reads what the topic holds. Producer "
        + transactionalId + " was closed; nothing is retried", e, checkpointId, null);
  }

  /**
   * Writes a released owner record (and a pending completion mark) in one transaction, then closes
   * the producer. A fenced or broken view writes nothing. A failure is logged: the coordinator then
   * stays held, and the next owner needs to take it over. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (status == Status.CLOSED) {
        return;
      }
      Status was = status;
      status = Status.CLOSED;
      try {
        if (was == Status.OPEN) {
          release();
        }
      } finally {
        producer.close(was == Status.OPEN ? CLOSE_TIMEOUT : Duration.ZERO);
        onClose.accept(this);
      }
    }
  }

  @GuardedBy("lock")
  private void release() {
    try {
      producer.beginTransaction();
      appender.owner(ctx.ownerName, true);
      if (lastCompleted > writtenCompletion) {
        appender.completion(lastCompleted);
      }
      producer.commitTransaction();
      writtenCompletion = lastCompleted;
    } catch (RuntimeException e) {
      if (Failures.isFenced(e)) {
        LOG.info("coordinator '{}' on state log {} was claimed by another owner before it was "
            + "released; nothing to release", coordinatorId, ctx.describe());
        return;
      }
      LOG.warn("coordinator '{}' on state log {}: could not mark it released ({}); it stays held "
          + "by '{}', and the next owner must take it over (KafkaStateLog.Builder.takeOver)",
          coordinatorId, ctx.describe(), e.toString(), ctx.ownerName);
    }
  }

  @Override
  public String toString() {
    return "CoordinatorLog{'" + coordinatorId + "' on " + ctx.describe() + ", epoch " + epoch
        + ", partition " + partition.partition() + "}";
  }
}
