package dev.twophase.flink;

import dev.twophase.annotation.Experimental;
import java.io.Serializable;

/**
 * Turns a record of the sink's input into the record one participant writes, or into none. With
 * several participants in one sink, each has its own mapper: an order can become a line in a file
 * and a row in a database, or go to only one of them.
 *
 * <p>Called on the writer's task thread for every record, before the participant's
 * {@link dev.twophase.RecordWriter#write}. Serializable like {@link ParticipantFactory}. What it
 * throws fails the record's task (Flink has no per-record error handling in sinks), and the job
 * restarts from its last checkpoint.
 *
 * @param <IN>  the sink's input type
 * @param <OUT> the participant's record type
 */
@Experimental
@FunctionalInterface
public interface InputMapper<IN, OUT> extends Serializable {

  /** The record to write for {@code record}, or null to write nothing to this participant. */
  OUT map(IN record) throws Exception;

  /** Writes every input record as it is. */
  static <T> InputMapper<T, T> identity() {
    return record -> record;
  }
}
