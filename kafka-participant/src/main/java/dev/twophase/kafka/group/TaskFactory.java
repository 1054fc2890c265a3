package dev.twophase.kafka.group;

import dev.twophase.annotation.PublicEvolving;

/**
 * Makes the participants and the record processing of one task, each time a {@link GroupRunner}
 * is given the task's input partition: at the first assignment, and again in whichever process
 * the partition moves to. A task is one input partition with a coordinator of its own.
 *
 * <p>Register the participants through {@link TaskSetup#participant}; they must be new instances,
 * for this task alone (the task's coordinator closes them with the task). Name their resources
 * after {@link TaskSetup#taskId()} where a resource must not be shared between tasks (a file
 * participant's directory may be shared: its names carry the coordinator id).
 *
 * <p>Called on the runner's thread, inside the consumer's rebalance, before the task's
 * coordinator recovers what the task's previous owner left. A factory that throws fails the
 * runner: {@link GroupRunner#run()} throws, nothing was processed for the task, and the partition
 * goes back to the group.
 *
 * @param <K> the input key type
 * @param <V> the input value type
 */
@PublicEvolving
@FunctionalInterface
public interface TaskFactory<K, V> {

  /** The participants of one task, registered in {@code setup}, and what it does with each record. */
  RecordProcessor<K, V> create(TaskSetup setup) throws Exception;
}
