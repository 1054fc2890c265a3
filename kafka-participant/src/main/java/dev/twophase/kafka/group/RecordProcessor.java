package dev.twophase.kafka.group;

import dev.twophase.annotation.PublicEvolving;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a task does with one input record: write its outputs through the {@link
 * dev.twophase.Output}s its {@link TaskSetup} gave (or through a participant's current
 * transaction, such as a JDBC participant's connection). Everything written for a record lands in
 * the same checkpoint, so the outputs of the records before a decided checkpoint become visible
 * exactly once, in every participant, and the task resumes after them.
 *
 * <p>Called on one of the runner's task threads, the same for the task's whole life, in input
 * order; the tasks of one process run at the same time, so what several tasks' processors share
 * must be thread-safe. A processor that throws fails the runner
 * ({@link GroupRunner#run()} throws): the record's checkpoint is never decided, and the next
 * owner of the task reads the record again.
 *
 * @param <K> the input key type
 * @param <V> the input value type
 */
@PublicEvolving
@FunctionalInterface
public interface RecordProcessor<K, V> {

  void process(ConsumerRecord<K, V> record) throws Exception;
}
