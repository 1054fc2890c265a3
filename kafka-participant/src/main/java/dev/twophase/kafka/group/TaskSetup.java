package dev.twophase.kafka.group;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.Participant;
import dev.twophase.Writable;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.kafka.ConsumedOffsets;
import org.apache.kafka.common.TopicPartition;

/**
 * What a {@link TaskFactory} is given to set up one task: who the task is, a place to register its
 * participants, and the outputs to write through once the task runs.
 */
@PublicEvolving
public interface TaskSetup {

  /** The task's id: {@code <topic>-<partition>}. */
  String taskId();

  /**
   * The coordinator id of the task in the state log: {@code <group.id>/<topic>-<partition>}. A
   * topic name holds no {@code /}, so no two groups or topics share an id.
   */
  String coordinatorId();

  /** The task's input partition. */
  TopicPartition partition();

  /**
   * The input offsets of this task, for a Kafka participant's {@code consumedOffsets}: with them,
   * each checkpoint's Kafka transaction also commits the task's input position to the consumer
   * group with the consumer's group metadata (KIP-447), so that a process whose group generation
   * is stale cannot commit Kafka output. The runner keeps them up to date.
   */
  ConsumedOffsets consumedOffsets();

  /**
   * Registers a participant of the task's coordinator, under a name unique within the task.
   *
   * @throws IllegalArgumentException if the name is taken
   */
  void participant(String name, Participant<?, ?> participant);

  /**
   * Registers a participant and returns the output that writes into its current transaction. The
   * output works once the task runs (from the first call of the task's {@link RecordProcessor});
   * keep it and use it from the processor.
   */
  <IN, T, P extends Participant<T, ?> & Writable<IN, T>> Output<IN> output(String name, P participant);

  /**
   * The task's coordinator, once the task runs (from the first call of its {@link
   * RecordProcessor}): for a participant's current transaction ({@link
   * Coordinator#currentTransaction}), such as a JDBC participant's connection.
   *
   * @throws IllegalStateException before the task runs
   */
  Coordinator coordinator();
}
