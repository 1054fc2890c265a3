package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The coordinator's durable, append-only record of checkpoints; it replaces Flink's
 * {@code ListState}. One log serves many coordinators (one per input partition or thread, say),
 * each under its own id and with its own checkpoint ids.
 *
 * <h2>Ownership</h2>
 * Each coordinator id is owned by one process at a time, under an owner epoch that only rises.
 * {@link #open} claims it: it raises the coordinator's epoch above that of every earlier owner and
 * reads the last state in the same atomic step, so that once it returns no earlier owner can
 * append (its next {@link CoordinatorLog#appendState} fails with {@link FencedException}) and
 * nothing an earlier owner appended is missing from what it read. A zombie, a process that lost
 * the coordinator without noticing, can therefore never decide after the new owner has read.
 *
 * <p>Where a log lives decides who can claim from it:
 * <ul>
 *   <li>{@link FileStateLog} is a local directory owned as a whole by one process (a directory
 *       lock); its coordinators can be recovered only on the machine that holds the directory.
 *   <li>A shared log (in a database table or a Kafka topic, in the modules of those
 *       participants) is opened by many processes at once; any of them can claim any coordinator,
 *       and so recover it when its owner's machine is lost. Such a log refuses to claim a
 *       coordinator that another owner holds and has not released ({@link
 *       CoordinatorHeldException}) unless it was configured to take coordinators over.
 * </ul>
 *
 * <h2>Contract for implementations</h2>
 * <ul>
 *   <li>{@link CoordinatorLog#appendState} returns only when the record is durable (it survives
 *       power loss, or the loss of a machine for a replicated log); that return is the commit
 *       decision. Concurrent appends by different coordinators should share the cost of
 *       durability (group commit).
 *   <li>An append is conditional on the owner epoch: once another owner has claimed the
 *       coordinator, it fails. It fails with {@link FencedException} when the log knows that
 *       nothing was stored; when it cannot know whether the record was stored before the claim
 *       (a fence reported while a commit was in flight), the outcome is unknown, and it fails with
 *       another {@link TwoPhaseException}. Either way the new owner's claim has read every record
 *       that was stored, so a caller must never treat a failed append as "not decided" and abort.
 *   <li>For each coordinator, reading back yields the last durable state and the highest
 *       completion mark that reached the store; earlier states may be discarded (compaction).
 *   <li>Damage is reported, never skipped: a record that fails its checksum is a {@link
 *       StateLogCorruptedException}. A torn last record (a crash in the middle of an append that
 *       never returned) is cut off.
 *   <li>The log stores states up to {@link #MAX_STATE_BYTES}.
 *   <li>A failure whose outcome is unknown (a server that went away after the write was sent)
 *       is reported as such, never guessed: see {@link CoordinatorLog#appendState}.
 * </ul>
 * {@code dev.twophase.testkit.statelog.StateLogConformanceSuite} checks these rules against a
 * real store; every implementation should pass it (docs/state-log-testing.md).
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

  /** The longest coordinator id a log stores, in UTF-8 bytes. */
  int MAX_COORDINATOR_ID_BYTES = 255;

  /**
   * Checks a coordinator id against the rules every log applies, so that an id one log accepts
   * every other log accepts too: not empty, valid Unicode text (no unpaired surrogate), at most
   * {@link #MAX_COORDINATOR_ID_BYTES} bytes in UTF-8. Implementations call it first in {@link
   * #open}.
   *
   * @throws NullPointerException if {@code coordinatorId} is null
   * @throws IllegalArgumentException if the id breaks a rule; the message says which
   */
  static void checkCoordinatorId(String coordinatorId) {
    Objects.requireNonNull(coordinatorId, "coordinatorId");
    if (coordinatorId.isEmpty()) {
      throw new IllegalArgumentException("coordinatorId must not be empty");
    }
    ByteBuffer utf8;
    try {
      utf8 = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(coordinatorId));
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "coordinatorId must be valid Unicode text (it has an unpaired surrogate): "
              + coordinatorId, e);
    }
    if (utf8.remaining() > MAX_COORDINATOR_ID_BYTES) {
      throw new IllegalArgumentException("coordinatorId must be at most "
          + MAX_COORDINATOR_ID_BYTES + " UTF-8 bytes, was " + utf8.remaining());
    }
  }

  /**
   * Claims {@code coordinatorId} for this process and returns its view, holding what the log has
   * for it. The claim and the read are one atomic step: the view's {@link
   * CoordinatorLog#ownerEpoch()} is above that of every earlier owner of the coordinator, every
   * earlier owner is fenced from then on, and the view holds everything they appended.
   *
   * @throws CoordinatorHeldException if the coordinator is open on this log object, or held by
   *     another owner that has not released it and this log does not take coordinators over; the
   *     message names the holder
   * @throws TwoPhaseException if the store could not be read or written; nothing was claimed, or
   *     a claim that did reach the store only raised the epoch (a later open claims again)
   */
  CoordinatorLog open(String coordinatorId);

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

  /**
   * Whether this is a shared log: many processes, on any machines, open it at once, each
   * coordinator is claimed on its own, and a claim fences the coordinator's earlier owners wherever
   * they run. Its owner epochs then order every owner a coordinator ever had, and the coordinator
   * tells its participants so ({@link ParticipantContext#sharedLog()}): a participant's own claim on
   * its resource then yields to a newer owner, so that another process takes a coordinator over
   * while the old owner's process still lives (stopped, or cut off).
   *
   * <p>False (the default) for a log owned as a whole by one process, such as {@link
   * FileStateLog}: a copy of it (a restored backup) counts epochs of its own, and the participants'
   * claims refuse a second live owner. An implementation answers true only if its store is the one
   * place its coordinators' ownership is decided, so that a claim there does fence every earlier
   * owner.
   */
  default boolean isShared() {
    return false;
  }

  /**
   * Closes the log and releases every coordinator still open on it (a shared log marks them
   * released in the store, so that another process can claim them without taking them over).
   * Coordinators still open on it fail their next append. Idempotent.
   */
  @Override
  void close();

  /**
   * One coordinator's view of the log, under one owner epoch. Thread-safe; closing it releases
   * the coordinator id.
   */
  interface CoordinatorLog extends AutoCloseable {

    String coordinatorId();

    /**
     * The owner epoch under which this view appends: above that of every earlier owner of this
     * coordinator, in this log or (for a log owned as a whole) of the log.
     */
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
     * @throws FencedException if this owner was superseded and nothing was stored
     * @throws TwoPhaseException if the write or the sync failed: whether the record is durable is
     *     then unknown, and the caller must treat the decision as unknown (stop, and recover)
     */
    void appendState(long checkpointId, byte[] payload);

    /**
     * Notes that every commit up to {@code checkpointId} succeeded. Not synced: losing a mark only
     * causes an idempotent re-commit after a crash.
     */
    void appendCompletion(long checkpointId);

    /**
     * Releases the coordinator id (in the store, for a shared log: another process can then
     * claim it without taking it over); the log stays open for others. A fenced view releases
     * nothing. Idempotent.
     */
    @Override
    void close();
  }
}
