package dev.twophase.flink;

import dev.twophase.Participant;
import dev.twophase.annotation.Experimental;
import java.io.Serializable;

/**
 * Creates a participant on a Flink task manager. Participants hold live resources (open files,
 * producers, connections) and are not serializable; Flink ships the sink to its task managers by
 * Java serialization, so {@link TwoPhaseSink} carries this factory instead and calls it there: once
 * in every writer subtask and once in every committer subtask, each time the task (re)starts.
 *
 * <p>Contract:
 * <ul>
 *   <li><b>Serializable.</b> A lambda or class that captures only serializable values: a directory as
 *       a {@code String}, not a {@code java.nio.file.Path}; connection settings, not a
 *       {@code DataSource}. {@link TwoPhaseSink.Builder#build()} checks this and names the
 *       participant whose factory fails.
 *   <li><b>The same participant everywhere.</b> Every call must create an equivalent participant (the
 *       same resource, the same settings): a committer subtask commits handles that any writer
 *       subtask pre-committed, and after a failover or a change of parallelism a subtask recovers
 *       the transactions of others. Do not configure a participant per subtask.
 *   <li><b>Cheap to fail.</b> What it throws fails the task, and Flink's restart strategy applies.
 * </ul>
 *
 * @param <P> the participant type
 */
@Experimental
@FunctionalInterface
public interface ParticipantFactory<P extends Participant<?, ?>> extends Serializable {

  /** Creates a new participant, which the sink closes when its task ends. */
  P create() throws Exception;
}
