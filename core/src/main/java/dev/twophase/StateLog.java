package dev.twophase;

import dev.twophase.annotation.PublicEvolving;

/**
 * The coordinator's durable, append-only record of checkpoints; it replaces Flink's
 * {@code ListState}. One log serves many coordinators of one process (one per input partition or
 * thread, say), each under its own id and with its own checkpoint ids.
 *
 * <p>A log is owned by one process at a time. Opening it claims ownership and raises its owner
 * epoch; a second owner is refused. {@link FileStateLog} is the default, on the local file system;
 * a log in a database table or a Kafka topic can implement this interface so that a coordinator can
 * be recovered on another machine.
 *
 * <h2>Contract for implementations</h2>
 * <ul>
 *   <li>{@link CoordinatorLog#appendState} returns only when the record is durable (it survives
 *       power loss); that return is the commit decision. Concurrent appends by different
 *       coordinators should share the cost of durability (group commit).
 *   <li>For each coordinator, reading back yields the last durable state and the highest
 *       completion mark that reached the store; earlier states may be discarded (compaction).
 *   <li>Damage is reported, never skipped: a record that fails its checksum before the tail is a
 *       {@link StateLogCorruptedException}. A torn last record (a crash in the middle of an append
 *       that never returned) is cut off.
 *   <li>An append by an owner that has been superseded fails with {@link FencedException}.
 * </ul>
 */
@PublicEvolving
public interface StateLog extends AutoCloseable {

  /**
   * The largest state a coordinator stores for one checkpoint, 16 MiB: the encoded state record,
   * in which every handle, context and the application snapshot take the length of their codec's
   * bytes as base64 (4/3 of it). A checkpoint whose record would be larger fails before anything is
   * decided ({@link CheckpointFailedException}, naming the participant and its largest handle or
   * context, or the application snapshot), and so does a start-up whose record would be ({@link
   * FatalTwoPhaseException}). Every record within the limit is read back. Implementations store
   * payloads up to this size.
   */
  int MAX_STATE_BYTES = 16 * 1024 * 1024;

  /**
   * Claims {@code coordinatorId} in this log and returns its view, holding what the log has for it.
   *
   * @throws FencedException if a coordinator with this id is already open on this log
   */
  CoordinatorLog open(String coordinatorId);

  /** The epoch of this owner: higher than that of every earlier owner of the log. */
  long ownerEpoch();

  /**
   * The identity of this log: 8 characters of {@code [a-z0-9]}, chosen at random when the log was
   * created and the same for its whole life, through every reopening and compaction. Two logs
   * have different ids (with overwhelming probability; a copy of a log, a backup say, has the same
   * id as the log it was copied from). Together with the coordinator id and the owner epoch it
   * makes transaction names unique across logs: two deployments whose coordinators share an id
   * and write to one resource each have their own log, and so their own names.
   *
   * <p>An implementation stores the id durably when it creates the log, before the open that
   * created it returns, and reports a log whose id is missing or damaged as an error rather than
   * choosing a new one.
   */
  String logId();

  /** Releases ownership. Coordinators still open on it fail their next append. */
  @Override
  void close();

  /** One coordinator's view of the log. Thread-safe; closing it releases the coordinator id. */
  interface CoordinatorLog extends AutoCloseable {

    String coordinatorId();

    /** The owner epoch under which this view appends. */
    long ownerEpoch();

    /** The {@link StateLog#logId()} of the log this view belongs to. */
    String logId();

    /** The last state the log holds for this coordinator, or null if none. */
    StoredState lastState();

    /**
     * The highest checkpoint id with a completion mark, 0 if none. Marks are written only after
     * every commit of that checkpoint and of all earlier ones succeeded.
     */
    long lastCompletedCheckpointId();

    /**
     * Appends the coordinator's state as of {@code checkpointId} and returns once it is durable.
     * Ids never decrease for one coordinator; the same id may be appended again (the record
     * written at start-up repeats the last decided id).
     *
     * @throws IllegalArgumentException if {@code checkpointId} is lower than the last appended one
     * @throws FencedException if this owner was superseded
     * @throws TwoPhaseException if the write or the sync failed: whether the record is durable is
     *     then unknown, and the caller must treat the decision as unknown (stop, and recover)
     */
    void appendState(long checkpointId, byte[] payload);

    /**
     * Notes that every commit up to {@code checkpointId} succeeded. Not synced: losing a mark only
     * causes an idempotent re-commit after a crash.
     */
    void appendCompletion(long checkpointId);

    /** Releases the coordinator id; the log stays open for others. */
    @Override
    void close();
  }
}
