package dev.twophase;

import java.time.Duration;
import java.util.Optional;

/**
 * A resource that takes part in two-phase commit under a coordinator: a Kafka producer, a database
 * connection, a directory of files, or anything a user writes.
 *
 * <p>Threads. Calls concerning one transaction never overlap. Under a self-driving
 * {@link Coordinator}, though, the commit of a decided transaction runs on the committer thread
 * while the application thread begins, writes and pre-commits later transactions of the same
 * participant: share nothing mutable between transactions without guarding it (a Kafka participant
 * uses one producer per transaction from a pool for this reason). Under an
 * {@link EmbeddedCoordinator} every call comes from the engine's task thread. Every method
 * that may touch the external resource declares {@code throws Exception}; the coordinator wraps
 * what escapes into a {@link TwoPhaseException} that names the participant, the checkpoint and
 * the handle. Throw a {@link FatalTwoPhaseException} (e.g. {@link FencedException}) to say that
 * retrying is pointless; anything else thrown from {@link #commit} is retried.
 *
 * <h2>Life cycle of one transaction</h2>
 * <pre>
 *   beginTransaction ──► (records written) ──► preCommit ──► [decision logged] ──► commit
 *          │                                      │
 *          └──────────── abort ◄──────────────────┘   (checkpoint failed: presumed abort)
 * </pre>
 * After a crash, a new process sees only the handle: it calls {@link #recoverAndCommit} for
 * handles whose checkpoint was decided and {@link #recoverAndAbort} for handles that were open
 * when the last decision was logged.
 *
 * <h2>The handle ({@code TXN})</h2>
 * A small value (ids, names, an xid, a producer id and epoch) that is <em>enough to finish the
 * transaction from a new process</em>. It is stored in the coordinator's state log through
 * {@link #transactionCodec()}, so it must not refer to in-memory resources that the codec does not
 * write (a handle class may keep transient fields such as an open connection, as long as
 * {@code recoverAndCommit} works without them). The coordinator encodes a pre-committed handle
 * after {@link #preCommit} returned, so a handle may gather, during the writes, what
 * {@code recoverAndCommit} needs (the part files a file participant created, say); the handle of
 * an open transaction is encoded earlier, and {@code recoverAndAbort} must cope with that. Give it
 * value equality ({@code equals} and
 * {@code hashCode}; a record does): {@link RecoveryContext#handledTransactions()} and the
 * participant's own bookkeeping compare handles.
 *
 * <h2>Idempotency</h2>
 * {@link #commit}, {@link #recoverAndCommit} and {@link #recoverAndAbort} may be called more than
 * once for the same handle (a crash between the commit and the coordinator's completion mark makes
 * this routine), and {@code recoverAndAbort} may be called for a handle the resource never saw.
 * Implementations must make repeated calls harmless and say what they found through
 * {@link CommitOutcome}.
 *
 * <h2>Errors</h2>
 * A call the protocol never makes (committing a transaction that was not pre-committed, say) is a
 * bug in the caller: throw {@link FatalTwoPhaseException}, which stops the coordinator, rather
 * than an exception the coordinator would retry.
 *
 * @param <TXN>     the transaction handle
 * @param <CONTEXT> participant-wide state that survives restarts (use {@link Void} if none)
 */
public interface Participant<TXN, CONTEXT> {

  /** Encodes handles into the state log. The version lets a later release read older handles. */
  Codec<TXN> transactionCodec();

  /**
   * Encodes the user context into the state log. The default handles participants without a
   * context (it only accepts {@code null}); override it together with
   * {@link #initializeUserContext}.
   */
  default Codec<CONTEXT> contextCodec() {
    return Codecs.none();
  }

  /**
   * Creates the participant-wide context the first time a coordinator starts with this
   * participant (the log holds no state of it). Not called when the participant's state was
   * restored, even if its context was empty.
   */
  default Optional<CONTEXT> initializeUserContext(ParticipantContext context) throws Exception {
    return Optional.empty();
  }

  /**
   * Starts a new transaction and returns its handle. Records written between this call and
   * {@link #preCommit} belong to it. The context carries names that are unique per coordinator and
   * transaction, from which the participant should derive its resource names so that it can find
   * leftovers on start-up (see {@link #finishRecoveringContext}).
   */
  TXN beginTransaction(TransactionContext<CONTEXT> context) throws Exception;

  /**
   * Makes the transaction's data durable but keeps it invisible: flush buffers, fsync files,
   * {@code PREPARE TRANSACTION}, flush the producer. After a successful return, a
   * {@code commit} or {@code recoverAndCommit} of this handle, from this or a new process, must be
   * able to succeed; the transaction may still be aborted. Throwing fails the checkpoint: every
   * participant's transaction of that checkpoint is aborted.
   */
  void preCommit(TXN transaction) throws Exception;

  /**
   * Makes a pre-committed transaction visible. Called only after the coordinator has durably
   * decided the checkpoint, per participant in creation order. Must be idempotent.
   *
   * @return {@link CommitOutcome#COMMITTED} if this call committed it,
   *     {@link CommitOutcome#ALREADY_COMMITTED} if the resource shows it was committed before, and
   *     {@link CommitOutcome#LOST} if it can no longer be committed (expired, aborted by the
   *     resource); never guess: if the resource cannot tell, throw and let the coordinator retry
   */
  CommitOutcome commit(TXN transaction) throws Exception;

  /**
   * Rolls back a transaction that will never be committed (its checkpoint failed, or the
   * coordinator closes with it open). Must tolerate a transaction that is already gone. The
   * coordinator never aborts a committed transaction; but if you keep the default
   * {@link #recoverAndAbort}, this method must also leave a committed transaction alone, silently.
   */
  void abort(TXN transaction) throws Exception;

  /**
   * Commits, from a new process and from the handle alone, a transaction of a decided checkpoint.
   * Called on start-up in checkpoint order. Same outcomes and idempotency as {@link #commit}; the
   * default delegates to it.
   */
  default CommitOutcome recoverAndCommit(TXN transaction) throws Exception {
    return commit(transaction);
  }

  /**
   * Aborts, from a new process and from the handle alone, a transaction that was open when the
   * last decision was logged. Must succeed silently for a handle the resource does not know (it
   * may never have been created, or was finished before the crash). The default delegates to
   * {@link #abort}.
   */
  default void recoverAndAbort(TXN transaction) throws Exception {
    abort(transaction);
  }

  /**
   * Called once per start, after every recovered handle was committed or aborted and before the
   * first new transaction begins. This is where a participant finds and aborts transactions the
   * log cannot know about (begun after the last durable record), using its naming scheme and
   * {@link RecoveryContext#isOwnTransactionName(String)}, and leaving the handles in
   * {@link RecoveryContext#handledTransactions()} and other coordinators' resources alone.
   */
  default void finishRecoveringContext(RecoveryContext<TXN, CONTEXT> context) throws Exception {}

  /**
   * End of input: flush what is buffered into {@code transaction}, which the coordinator
   * pre-commits in the last checkpoint right after. No transaction is begun after it.
   */
  default void finishProcessing(TXN transaction) throws Exception {}

  /**
   * How long the resource keeps an open or prepared transaction before it expires it (Kafka's
   * {@code transaction.timeout.ms}, for example). Empty means the coordinator's
   * {@code transactionTimeout} applies.
   */
  default Optional<Duration> transactionTimeout() {
    return Optional.empty();
  }

  /** Releases the participant's resources. Open transactions were aborted before this call. */
  default void close() throws Exception {}
}
