package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.time.Duration;
import java.util.Optional;

/**
 * A resource that takes part in two-phase commit under a coordinator: a Kafka producer, a database
 * connection, a directory of files, or anything a user writes.
 *
 * <h2>Life cycle of one transaction</h2>
 * <pre>
 *   beginTransaction ──► (records written) ──► preCommit ──► [decision logged] ──► commit
 *          │                                      │
 *          └──────────── abort ◄──────────────────┘   (checkpoint failed: presumed abort)
 * </pre>
 * After a crash, a new process sees only the handles in the state log: it calls
 * {@link #recoverAndCommit} for the handles of decided checkpoints and {@link #recoverAndAbort} for
 * the handles that were open when the last decision was logged, then
 * {@link #finishRecoveringContext} to clean up what the log cannot know about.
 *
 * <h2>The handle ({@code TXN})</h2>
 * An immutable value (a record) that is <em>enough to finish the transaction from a new
 * process</em>: ids, names, an xid, a producer id and epoch, the files written. The coordinator
 * writes it to the state log through {@link #transactionCodec()} and compares handles with
 * {@code equals}, so give it value equality and let every field be written by the codec. Keep live
 * resources (an open connection, a producer, a file being written) inside the participant, keyed
 * by the handle or its name, never in the handle. Two handles exist per transaction: the one
 * {@link #beginTransaction} returns, logged as "open" (recovery aborts it), and the one
 * {@link #preCommit} returns, logged as "to commit", which may add what was gathered during the
 * writes (the part files created, say). Like Flink's committables, the second is all that
 * {@link #commit} ever receives, in this process or in the next.
 *
 * <h2>Durability</h2>
 * When {@link #preCommit} returns, the transaction's data must survive a crash of this process and
 * of the machine (power loss): the decision that follows makes it committable from the handle
 * alone. When {@link #commit} or {@link #recoverAndCommit} returns, the <em>commit</em> must be
 * durable too: the coordinator then marks the checkpoint complete and will never commit it again,
 * so a commit the resource forgets after a crash is data lost for good (recovery would report it
 * as {@link TransactionLostException}, or abort it as a leftover). Check the resource's settings:
 * PostgreSQL {@code fsync} and {@code synchronous_commit} on; MySQL/MariaDB
 * {@code innodb_flush_log_at_trx_commit=1} and {@code sync_binlog=1}; H2 {@code WRITE_DELAY=0};
 * SQLite {@code synchronous=FULL}; Kafka {@code acks=all}; files fsynced, and their directories
 * after a create or rename.
 *
 * <h2>Idempotency</h2>
 * {@link #commit}, {@link #recoverAndCommit} and {@link #recoverAndAbort} may be called more than
 * once for the same handle (a crash between a commit and the coordinator's completion mark makes
 * this routine), and {@code recoverAndAbort} may be called for a handle the resource never saw.
 * Repeated calls must be harmless, and each says what it found ({@link CommitOutcome},
 * {@link AbortOutcome}): never guess; if the resource cannot tell, throw.
 *
 * <h2>Threads</h2>
 * Calls concerning one transaction never overlap. Under a self-driving {@link Coordinator}, though,
 * the commit of a decided transaction runs on the committer thread while the application thread
 * begins, writes and pre-commits later transactions of the same participant: share nothing mutable
 * between transactions without guarding it. Under an {@link EmbeddedCoordinator} every call comes
 * from the engine's task thread.
 *
 * <h2>Errors</h2>
 * Every method that may touch the external resource declares {@code throws Exception}; the
 * coordinator wraps what escapes into a {@link TwoPhaseException} that names the participant, the
 * checkpoint and the handle. Anything thrown from {@link #commit} is retried, with backoff, until
 * it succeeds; throw a {@link FatalTwoPhaseException} (e.g. {@link FencedException}) to say that
 * retrying is pointless. A call the protocol never makes (committing a transaction that was not
 * pre-committed, say) is a bug in the caller: throw {@link FatalTwoPhaseException}.
 *
 * <h2>Optional capabilities</h2>
 * {@link Writable} (records through the coordinator's {@link Output}), {@link RetirementListener}
 * (told when a handle can no longer be committed again, to clean up). A participant that wants its
 * own operations crash-tested accepts a {@link FaultInjector} in its builder.
 *
 * @param <TXN>     the transaction handle, an immutable value
 * @param <CONTEXT> participant-wide state that survives restarts (use {@link Void} if none)
 */
@PublicEvolving
public interface Participant<TXN, CONTEXT> extends AutoCloseable {

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
   * {@link #preCommit} belong to it. The context carries a name unique per coordinator, state log
   * and transaction ({@link TransactionContext#transactionName()}), from which the participant
   * should derive its resource names, so that it can find leftovers on start-up (see
   * {@link #finishRecoveringContext}).
   */
  TXN beginTransaction(TransactionContext<CONTEXT> context) throws Exception;

  /**
   * Makes the transaction's data durable but keeps it invisible: flush buffers, fsync files,
   * {@code PREPARE TRANSACTION}, flush the producer. Returns the handle to log and to pass to
   * {@link #commit} later (the same one if nothing changed; never null).
   *
   * <p>After a successful return, a {@code commit} or {@code recoverAndCommit} of the returned
   * handle, from this or a new process, must be able to succeed; the transaction may still be
   * aborted (through either handle). Throwing fails the checkpoint: every participant's
   * transaction of that checkpoint is aborted.
   */
  TXN preCommit(TXN transaction) throws Exception;

  /**
   * Makes a pre-committed transaction visible, durably (see "Durability" above). Called only
   * after the coordinator has durably decided the checkpoint, per participant in creation order,
   * with the handle {@link #preCommit} returned. Must be idempotent.
   *
   * @return {@link CommitOutcome#COMMITTED} if this call committed it,
   *     {@link CommitOutcome#ALREADY_COMMITTED} if the resource shows it was committed before, and
   *     {@link CommitOutcome#LOST} if the resource shows it can no longer be committed (expired,
   *     rolled back); never guess: if the resource cannot tell, throw and let the coordinator retry
   */
  CommitOutcome commit(TXN transaction) throws Exception;

  /**
   * Rolls back a transaction that will never be committed (its checkpoint failed, or the
   * coordinator closes with it open), given either of its handles. Must tolerate a transaction
   * that is already gone. The coordinator never aborts a committed transaction.
   */
  void abort(TXN transaction) throws Exception;

  /**
   * Called at every start, before any handle is committed or aborted by recovery, with the context
   * this incarnation works under (its prefix of transaction names and its owner epoch); an engine
   * that restores several lineages calls it once for each, before recovering that lineage. A
   * participant whose resource can record who works on a coordinator's transactions claims them
   * here (the file participant locks a claim file in its directory), so that a second live owner
   * of the same names (a copy of the state log started beside the original) is refused, with a
   * {@link FencedException} naming both, before it commits, aborts or deletes anything. Idempotent
   * for a prefix already claimed. Default: nothing.
   */
  default void startRecovery(ParticipantContext context) throws Exception {}

  /**
   * Commits, from a new process and from the handle alone, a transaction of a decided checkpoint.
   * Called on start-up in checkpoint order. Same outcomes, durability and idempotency as
   * {@link #commit}; the default delegates to it.
   */
  default CommitOutcome recoverAndCommit(TXN transaction) throws Exception {
    return commit(transaction);
  }

  /**
   * Aborts, from a new process and from the handle alone, a transaction that was open (begun, maybe
   * pre-committed, not decided) when the last decision was logged, and says what it found. The
   * handle is the one {@link #beginTransaction} returned: it may name nothing the transaction wrote
   * later, so look the transaction up by its name.
   *
   * @return {@link AbortOutcome#ABORTED} if this call rolled back something in progress or
   *     prepared, {@link AbortOutcome#NOT_FOUND} if there was nothing to roll back (never
   *     created, already rolled back, expired), and {@link AbortOutcome#COMMITTED} if the resource
   *     shows the transaction committed, in which case leave it as it is: that is proof that the
   *     log lost a decision. Never guess: if the resource cannot tell committed from rolled back
   *     for a transaction that wrote something, throw.
   */
  AbortOutcome recoverAndAbort(TXN transaction) throws Exception;

  /**
   * Called once per start, after every recovered handle was committed or aborted and before the
   * first new transaction begins. This is where a participant finds and aborts transactions the
   * log cannot know about (begun after the last durable record): it lists what its resource holds
   * in progress and aborts each name {@link RecoveryContext#leftovers} accepts, which leaves the
   * handles in {@link RecoveryContext#handledTransactions()} and other coordinators' resources
   * alone.
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
   * {@code transactionTimeout} applies; empty there too means none applies.
   */
  default Optional<Duration> transactionTimeout() {
    return Optional.empty();
  }

  /**
   * Releases the participant's resources. The coordinator calls it once, after it aborted the open
   * transactions; pending (decided) transactions must be left as they are, for the next start to
   * commit.
   */
  @Override
  default void close() throws Exception {}
}
