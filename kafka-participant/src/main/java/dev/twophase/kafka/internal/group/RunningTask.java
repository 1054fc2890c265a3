package dev.twophase.kafka.internal.group;

import dev.twophase.ApplicationState;
import dev.twophase.Checkpoint;
import dev.twophase.CheckpointFailedException;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.CoordinatorState;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.ConsumedOffsets;
import dev.twophase.kafka.group.RecordProcessor;
import dev.twophase.kafka.group.TaskFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task of a group runner: an input partition, the coordinator named after it, and the
 * factory's processor. Its application state is the partition's next input offset, so that
 * whoever claims the coordinator next (this process after a failed checkpoint, or another after a
 * rebalance or a crash) seeks to where the last decided checkpoint ends.
 *
 * <p>Threads: it is opened on the runner's polling thread (its coordinator's recovery seeks the
 * consumer there); from then on it processes, checkpoints and closes on its task thread ({@link
 * TaskThreads}), while the polling thread waits. A position restored there after a failed
 * checkpoint is left for the polling thread to seek to ({@link #seekIfRewound}).
 */
@Internal
public final class RunningTask<K, V> {

  private static final Logger LOG = LoggerFactory.getLogger("dev.twophase.kafka.group.GroupRunner");

  private final String group;
  private final TopicPartition partition;
  private final String taskId;
  private final Consumer<K, V> consumer;
  private final ConsumedOffsets offsets;
  private final int maxPending;
  private final int thread;
  private RecordProcessor<K, V> processor;
  private Coordinator coordinator;
  /** The next input offset to process. */
  private long position;
  /** Whether the coordinator's start restored a position (and the consumer was sought there). */
  private boolean restored;
  /** Where the consumer must seek to, after a failed checkpoint rewound the task; -1 if nowhere. */
  private volatile long rewoundTo = -1;

  private RunningTask(String group, TopicPartition partition, Consumer<K, V> consumer,
      Supplier<ConsumerGroupMetadata> groupMetadata, int maxPending, int thread) {
    this.group = group;
    this.partition = partition;
    this.taskId = taskId(partition);
    this.consumer = consumer;
    this.offsets = ConsumedOffsets.of(groupMetadata);
    this.maxPending = maxPending;
    this.thread = thread;
  }

  /** {@code <topic>-<partition>}. */
  public static String taskId(TopicPartition partition) {
    return partition.topic() + "-" + partition.partition();
  }

  /**
   * {@code <group>/<topic>-<partition>}: a topic name holds no {@code /}, so the last one
   * separates the group from the task, and no two groups or topics share a coordinator.
   */
  public static String coordinatorId(String group, TopicPartition partition) {
    return group + "/" + taskId(partition);
  }

  /**
   * Makes the task's participants and processor, claims its coordinator (fencing its previous
   * owner), recovers what that owner left and seeks the consumer to where its last decided
   * checkpoint ends.
   *
   * @throws TwoPhaseException if the factory failed, the coordinator could not be claimed or
   *     recovered; everything the task had opened is closed again
   */
  public static <K, V> RunningTask<K, V> open(String group, TopicPartition partition, Consumer<K, V> consumer,
      Supplier<ConsumerGroupMetadata> groupMetadata, int thread, StateLog log, CoordinatorConfig config,
      CoordinatorListener listener, TaskFactory<K, V> factory) {
    RunningTask<K, V> task = new RunningTask<>(group, partition, consumer, groupMetadata,
        config.maxPendingCheckpoints(), thread);
    String coordinatorId = coordinatorId(group, partition);
    TaskSetupImpl setup = new TaskSetupImpl(task.taskId, coordinatorId, partition, task.offsets);
    try {
      task.processor = factory.create(setup);
      if (task.processor == null) {
        throw new IllegalStateException("the TaskFactory returned no RecordProcessor (null)");
      }
      if (setup.participants().isEmpty()) {
        throw new IllegalStateException("the TaskFactory registered no participant: register the task's outputs "
            + "with TaskSetup.participant or TaskSetup.output");
      }
    } catch (Exception | Error e) {
      closeQuietly(setup.participants().values(), e);
      throw new FatalTwoPhaseException("task " + task.taskId + " of group '" + group + "': its TaskFactory failed: "
          + e + ". Nothing of the task was processed; fix the factory (its partition goes back to the group)", e);
    }
    Coordinator.Builder builder = Coordinator.builder(coordinatorId, log)
        .config(config)
        .applicationState(ApplicationState.of(TaskPosition.codec(), task::snapshot, task::restore,
            task::restoreAfterFailedCheckpoint));
    setup.participants().forEach(builder::participant);
    if (listener != null) {
      builder.listener(listener);
    }
    task.coordinator = builder.build(); // closes the participants if it fails
    if (!task.restored) {
      // No checkpoint to resume from: the group's committed offset, or the reset policy. Asked
      // only now: until recovery aborted what earlier owners left open, input offsets pending in
      // one of their transactions hold the broker's answer back, for up to its timeout
      try {
        task.position = consumer.position(partition);
      } catch (RuntimeException | Error e) {
        try {
          task.coordinator.close();
        } catch (RuntimeException | Error closing) {
          e.addSuppressed(closing);
        }
        throw e;
      }
    }
    setup.bind(task.coordinator);
    LOG.info("task {} of group '{}' runs: coordinator '{}', owner epoch {}, last decided checkpoint {}, "
            + "resuming at offset {}", task.taskId, group, coordinatorId, task.coordinator.ownerEpoch(),
        task.coordinator.lastCheckpointId(), task.position);
    return task;
  }

  private TaskPosition snapshot(long checkpointId) {
    return new TaskPosition(group, partition.topic(), partition.partition(), position);
  }

  private void restore(TaskPosition p, long checkpointId) {
    if (!p.group().equals(group) || !p.topic().equals(partition.topic()) || p.partition() != partition.partition()) {
      throw new FatalTwoPhaseException("coordinator '" + coordinatorId(group, partition) + "' holds the input "
          + "position of group '" + p.group() + "', partition " + p.topic() + "-" + p.partition() + " (checkpoint "
          + checkpointId + "), not of group '" + group + "', partition " + taskId + ": two groups or inputs are "
          + "using one coordinator. Give each group its own group.id, or its own state log");
    }
    seek(p.next());
  }

  private void restoreAfterFailedCheckpoint(TaskPosition p, long checkpointId) {
    LOG.warn("task {}: a checkpoint failed and was aborted; replaying from offset {} (decided checkpoint {})",
        taskId, p.next(), checkpointId);
    position = p.next();
    offsets.forget(List.of(partition));
    rewoundTo = p.next(); // the polling thread seeks: the consumer is not this thread's
  }

  private void seek(long next) {
    restored = true;
    position = next;
    consumer.seek(partition, next);
    offsets.forget(List.of(partition));
  }

  /**
   * Seeks the consumer to where a failed checkpoint rewound the task, if one did. The polling
   * thread, after the task's share of a poll.
   */
  public void seekIfRewound() {
    long to = rewoundTo;
    if (to >= 0) {
      rewoundTo = -1;
      consumer.seek(partition, to);
    }
  }

  /** The index of the task thread this task runs on. */
  public int thread() {
    return thread;
  }

  public String taskId() {
    return taskId;
  }

  public TopicPartition partition() {
    return partition;
  }

  /** Processes one record of the task's partition. */
  public void process(ConsumerRecord<K, V> record) throws Exception {
    processor.process(record);
    position = record.offset() + 1;
    offsets.processed(partition, position);
  }

  /**
   * Whether the task must wait for its commits: as many checkpoints as the coordinator allows
   * await their commit. The runner then pauses the task's partition and polls on, rather than
   * block in a checkpoint past {@code max.poll.interval.ms}.
   */
  public boolean mustWaitForCommits() {
    return maxPending > 0 && coordinator.pendingCheckpoints() >= maxPending;
  }

  /**
   * Checkpoints if one is due. A failed checkpoint (aborted everywhere) rewinds the task to the
   * last decided one, and the consumer with it.
   *
   * @throws FatalTwoPhaseException if the coordinator cannot go on (fenced: another process owns
   *     the task now)
   */
  public void maybeCheckpoint() {
    try {
      coordinator.maybeCheckpoint();
    } catch (CheckpointFailedException e) {
      LOG.warn("task {}: {}", taskId, e.getMessage(), e);
    }
  }

  /**
   * Ends the task because its partition goes to another process: a last checkpoint decides what
   * was processed, its commit is awaited up to {@code timeout} (the next owner's recovery finishes
   * it otherwise), and the coordinator closes, releasing the task in the state log.
   */
  public void closeCleanly(Duration timeout) {
    try {
      if (coordinator.state() == CoordinatorState.RUNNING) {
        Checkpoint last = coordinator.checkpoint();
        last.awaitCommitted(timeout);
        LOG.info("task {} handed over at offset {}: checkpoint {} committed", taskId, position, last.id());
      }
    } catch (CheckpointFailedException e) {
      LOG.warn("task {} handed over after its last checkpoint failed and was aborted: the next owner replays "
          + "from the last decided one", taskId, e);
    } catch (TwoPhaseException e) {
      LOG.warn("task {} handed over without its last commit: the next owner's recovery finishes it", taskId, e);
    } finally {
      coordinator.close();
    }
  }

  /**
   * Ends the task without a last checkpoint: its partition was lost (this process was fenced or
   * left the group without knowing), so nothing more may be decided.
   */
  public void closeAbandoned() {
    coordinator.close();
  }

  private static void closeQuietly(Iterable<Participant<?, ?>> participants, Throwable failure) {
    for (Participant<?, ?> p : participants) {
      try {
        p.close();
      } catch (Exception | Error e) {
        failure.addSuppressed(e);
      }
    }
  }
}
