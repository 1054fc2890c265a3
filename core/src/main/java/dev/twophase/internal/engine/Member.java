package dev.twophase.internal.engine;

import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.CommitOutcomeUnknownException;
import dev.twophase.CoordinatorListener;
import dev.twophase.DecisionLostException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.Participant;
import dev.twophase.RecordWriter;
import dev.twophase.RetirementListener;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.TransactionLostException;
import dev.twophase.Writable;
import dev.twophase.annotation.Internal;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One participant as an engine holds it, and every step the protocol takes with it. Each step
 * calls the participant once and checks what it returns, so that every front-end reads a broken
 * participant the same way:
 *
 * <table>
 *   <caption>what a step's failure means</caption>
 *   <tr><th>the participant</th><th>the step throws</th></tr>
 *   <tr><td>returns null where the SPI promises a value (a handle, a writer, a committable, an
 *       outcome, an encoding)</td><td>a {@link FatalTwoPhaseException} naming the participant and
 *       the method: retrying would get the same</td></tr>
 *   <tr><td>throws a {@link FatalTwoPhaseException} or an {@link Error}</td><td>it, as it is</td></tr>
 *   <tr><td>throws another exception in a step that may be tried again (begin, start-up recovery,
 *       commit)</td><td>a {@link RetriableTwoPhaseException} with the front-end's advice</td></tr>
 *   <tr><td>throws in {@code preCommit}</td><td>it, as it is: the front-end fails the checkpoint
 *       its own way</td></tr>
 * </table>
 *
 * What commit outcomes and lost decisions mean follows the front-end's {@link CommitRules}.
 *
 * <p>The current transaction ({@link #current()}, its writer and when it was begun) belongs to the
 * thread that writes; the commit and abort steps touch only the participant and final fields, and
 * may run on any thread.
 *
 * @param <T> the participant's handle type
 * @param <C> the participant's context type
 */
@Internal
public final class Member<T, C> {

  /** How a handle is committed. */
  public enum CommitCall {
    /** {@code commit}: by the incarnation that pre-committed it; a failure is retried. */
    LIVE,
    /** {@code recoverAndCommit} by a running front-end (a restored committable); retried. */
    RESTORED,
    /**
     * {@code recoverAndCommit} at start-up; a failure of a transaction older than its timeout is
     * dropped when the rules allow it, as a {@code LOST} outcome is.
     */
    RECOVERY
  }

  /** What a commit came to, when it did not throw. */
  public enum Committed {
    COMMITTED,
    ALREADY_COMMITTED,
    /** Lost, or failing at start-up, past its timeout: dropped as the rules allow. */
    LOST_IGNORED,
    /** The participant could not tell; taken as done as the rules allow. */
    UNKNOWN_IGNORED
  }

  private final int index;
  private final String name;
  private final Participant<T, C> participant;
  private final Codec<T> transactionCodec;
  private final Codec<C> contextCodec;
  /** Effective transaction timeout: the participant's own, else the front-end's; may be null. */
  private final Duration timeout;
  private final Writable<Object, T> writable;
  private final RetirementListener<T> retirement;
  private final FrontEnd frontEnd;

  /** This incarnation's context: its name prefix and epoch; null until {@link #incarnation}. */
  private Contexts.Participant incarnation;
  private Optional<C> userContext = Optional.empty();

  /** The open transaction, as {@code beginTransaction} returned it, or null. */
  private T current;
  /** Where records of {@link #current} go (Writable participants only). */
  private RecordWriter<Object> writer;
  private long currentBegunAt;
  private long currentCheckpointId;
  /** Records written into this participant since the last checkpoint. */
  private long records;

  /**
   * Takes {@code participant} into the engine, checking its codecs and timeout.
   *
   * @throws IllegalArgumentException if a codec is null or has a version below 1, or the timeout
   *     is null or not positive
   */
  @SuppressWarnings("unchecked")
  public Member(int index, String name, Participant<T, C> participant, FrontEnd frontEnd) {
    this.index = index;
    this.name = Objects.requireNonNull(name, "name");
    this.participant = Objects.requireNonNull(participant, "participant");
    this.frontEnd = Objects.requireNonNull(frontEnd, "frontEnd");
    this.transactionCodec = requireCodec(participant.transactionCodec(), "transactionCodec");
    this.contextCodec = requireCodec(participant.contextCodec(), "contextCodec");
    Optional<Duration> own = participant.transactionTimeout();
    if (own == null) {
      throw new IllegalArgumentException(
          "participant '" + name + "' returned null from transactionTimeout(); return Optional.empty()");
    }
    own.ifPresent(d -> {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(
            "participant '" + name + "' returned a transaction timeout of " + d + "; it must be > 0");
      }
    });
    this.timeout = own.orElse(frontEnd.defaultTimeout());
    this.writable = participant instanceof Writable ? (Writable<Object, T>) participant : null;
    this.retirement = participant instanceof RetirementListener ? (RetirementListener<T>) participant : null;
  }

  private <X> Codec<X> requireCodec(Codec<X> codec, String what) {
    if (codec == null) {
      throw new IllegalArgumentException("participant '" + name + "' returned null from " + what + "()");
    }
    if (codec.version() <= 0) {
      throw new IllegalArgumentException(
          "participant '" + name + "': " + what + "().version() must be positive, was " + codec.version());
    }
    return codec;
  }

  // ---------------------------------------------------------------- what it is

  public int index() {
    return index;
  }

  public String name() {
    return name;
  }

  public Participant<T, C> participant() {
    return participant;
  }

  public Codec<T> transactionCodec() {
    return transactionCodec;
  }

  public Codec<C> contextCodec() {
    return contextCodec;
  }

  /** The effective transaction timeout, or null if none applies. */
  public Duration timeout() {
    return timeout;
  }

  public boolean isWritable() {
    return writable != null;
  }

  /** The participant as a retirement listener, or null if it is none. */
  public RetirementListener<T> retirement() {
    return retirement;
  }

  // ---------------------------------------------------------------- incarnation

  /**
   * Sets this incarnation's transaction name prefix and epoch, and whether the epoch was claimed on
   * a shared log ({@link dev.twophase.ParticipantContext#sharedLog()}); before any other step.
   */
  public void incarnation(String transactionNamePrefix, long ownerEpoch, boolean sharedLog) {
    this.incarnation = new Contexts.Participant(frontEnd.coordinatorId(), name, transactionNamePrefix, ownerEpoch,
        sharedLog, frontEnd.maxPendingCheckpoints(), frontEnd.checkpointInterval());
  }

  /** The participant context of this incarnation. */
  public Contexts.Participant context() {
    if (incarnation == null) {
      throw new IllegalStateException("participant '" + name + "' has no incarnation yet");
    }
    return incarnation;
  }

  public Optional<C> userContext() {
    return userContext;
  }

  /** Restores the user context from a decision record ({@code bytes} null for none). */
  public void restoreUserContext(byte[] bytes, int version, String where) {
    userContext = bytes == null ? Optional.empty() : Optional.of(decodeUserContext(bytes, version, where));
  }

  /** A user context from what the context codec (this or an older version) wrote. */
  public C decodeUserContext(byte[] bytes, int version, String where) {
    return decode(contextCodec, bytes, version, "context", where);
  }

  /** {@code initializeUserContext}, for a participant that no decision record names. */
  public void initializeUserContext() {
    Optional<C> initial;
    try {
      initial = participant.initializeUserContext(context());
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw retriable("initializeUserContext", e, -1);
    }
    userContext = initial == null ? Optional.empty() : initial;
  }

  /** The user context, encoded, or null if there is none. */
  public byte[] encodeUserContext() {
    if (userContext.isEmpty()) {
      return null;
    }
    try {
      byte[] bytes = contextCodec.encode(userContext.get());
      if (bytes == null) {
        throw new IllegalStateException("it returned null");
      }
      return bytes;
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + name + "': its context codec (version "
          + contextCodec.version() + ") could not encode its context: " + e, e, -1, name);
    }
  }

  // ---------------------------------------------------------------- start-up recovery

  /** {@code startRecovery} for {@code context} (this incarnation's, or another lineage's prefix). */
  public void startRecovery(Contexts.Participant context) {
    try {
      participant.startRecovery(context);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw retriable("startRecovery of prefix " + context.transactionNamePrefix(), e, -1);
    }
  }

  /**
   * {@code finishRecoveringContext} for {@code context}'s prefix, with the handles this recovery
   * handled; {@code ownNames} narrows what is a leftover (null: every own name).
   */
  public void finishRecovering(
      Contexts.Participant context, List<T> handled, long lastCheckpointId, Optional<C> userContext,
      Predicate<String> ownNames) {
    try {
      participant.finishRecoveringContext(
          new Contexts.Recovery<>(context, handled, userContext, lastCheckpointId, ownNames));
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw retriable("finishRecoveringContext of prefix " + context.transactionNamePrefix(), e, lastCheckpointId);
    }
  }

  /**
   * {@code recoverAndAbort} of a transaction a decision record holds as open (never decided). One
   * the resource shows committed proves that a later decision was lost: a
   * {@link DecisionLostException}, unless the rules carry on.
   *
   * @param lastCheckpointId the last decided checkpoint the front-end knows of
   * @return the outcome
   */
  public AbortOutcome recoverAndAbort(T handle, long checkpointId, long lastCheckpointId) {
    AbortOutcome outcome;
    try {
      outcome = participant.recoverAndAbort(handle);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw retriable("recoverAndAbort of " + handle + " (begun for checkpoint " + checkpointId + ")", e,
          checkpointId);
    }
    if (outcome == null) {
      throw returnedNull("recoverAndAbort(" + handle + ")", "an AbortOutcome", checkpointId);
    }
    if (outcome == AbortOutcome.COMMITTED) {
      decisionLost(handle, checkpointId, lastCheckpointId);
    }
    return outcome;
  }

  private void decisionLost(T handle, long checkpointId, long lastCheckpointId) {
    FrontEnd.Advice advice = frontEnd.advice();
    String what = frontEnd.label() + ": participant '" + name + "' shows transaction " + handle + " committed, but "
        + advice.decisionSource() + " holds it as undecided (begun for checkpoint " + checkpointId
        + ", last decided checkpoint " + lastCheckpointId + "): " + advice.lostDecisionCause();
    if (frontEnd.rules().continueAfterLostDecision()) {
      frontEnd.log().error("{}. Carrying on as configured (continueAfterLostDecision): the transaction stays "
          + "committed, and the input resumes from checkpoint {}, so the records after it are written again",
          what, lastCheckpointId);
      return;
    }
    throw new DecisionLostException(what + ". Start-up stopped before anything was restored, so nothing is "
        + "written twice. " + advice.lostDecisionRemedy(), checkpointId, name);
  }

  // ---------------------------------------------------------------- the current transaction

  /**
   * Begins the transaction to be pre-committed in {@code checkpointId} and, for a writable
   * participant, asks for its writer; it becomes {@link #current()}.
   */
  public T begin(long checkpointId, long sequence) {
    Contexts.Transaction<C> context = new Contexts.Transaction<>(context(), checkpointId, sequence, userContext);
    T handle;
    try {
      handle = participant.beginTransaction(context);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw new RetriableTwoPhaseException("beginTransaction failed in participant '" + name + "' of "
          + frontEnd.label() + " for checkpoint " + checkpointId + ": " + e.getMessage(), e, checkpointId, name);
    }
    if (handle == null) {
      throw returnedNull("beginTransaction (for checkpoint " + checkpointId + ")", "a handle", checkpointId);
    }
    current = handle;
    currentBegunAt = frontEnd.clock().millis();
    currentCheckpointId = checkpointId;
    writer = null;
    if (writable != null) {
      RecordWriter<Object> w;
      try {
        w = writable.writerFor(handle);
      } catch (FatalTwoPhaseException e) {
        throw e;
      } catch (Exception e) {
        throw new RetriableTwoPhaseException("writerFor(" + handle + ") failed in participant '" + name + "' of "
            + frontEnd.label() + ": " + e.getMessage(), e, checkpointId, name);
      }
      if (w == null) {
        throw returnedNull("writerFor(" + handle + ")", "a RecordWriter", checkpointId);
      }
      writer = w;
    }
    return handle;
  }

  /** The open transaction, or null. Writing thread only. */
  public T current() {
    return current;
  }

  /** Where records of the open transaction go, or null. Writing thread only. */
  public RecordWriter<Object> writer() {
    return writer;
  }

  /** When the open transaction was begun, by the front-end's clock. */
  public long currentBegunAt() {
    return currentBegunAt;
  }

  /** The checkpoint the open transaction was begun for. */
  public long currentCheckpointId() {
    return currentCheckpointId;
  }

  /** The open transaction is over (pre-committed or aborted): no handle, no writer. */
  public void clearCurrent() {
    current = null;
    writer = null;
  }

  /** Counts a record written into the open transaction. */
  public void recordWritten() {
    records++;
  }

  /** Records written since the last {@link #resetRecords()}. */
  public long records() {
    return records;
  }

  public void resetRecords() {
    records = 0;
  }

  /** {@code finishProcessing} of the open transaction (end of input); any failure is fatal. */
  public void finishProcessing(long checkpointId) {
    try {
      participant.finishProcessing(current);
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      throw new FatalTwoPhaseException("finishProcessing failed in participant '" + name + "' of "
          + frontEnd.label() + " for " + current + ": " + e, e, checkpointId, name);
    }
  }

  /**
   * {@code preCommit} of the open transaction. What the participant throws is thrown as it is:
   * the front-end fails the checkpoint.
   *
   * @return the handle to commit
   */
  public T preCommit() throws Exception {
    T committable = participant.preCommit(current);
    if (committable == null) {
      throw returnedNull("preCommit(" + current + ")", "the handle to commit (the same one if nothing changed)",
          currentCheckpointId);
    }
    return committable;
  }

  // ---------------------------------------------------------------- handles

  /** {@code handle} as the participant's transaction codec writes it. */
  public byte[] encode(T handle) {
    byte[] bytes;
    try {
      bytes = transactionCodec.encode(handle);
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + name + "': its transaction codec (version "
          + transactionCodec.version() + ") could not encode " + handle + ": " + e, e, -1, name);
    }
    if (bytes == null) {
      throw new FatalTwoPhaseException("participant '" + name + "': its transaction codec (version "
          + transactionCodec.version() + ") encoded " + handle + " as null", null, -1, name);
    }
    return bytes;
  }

  /** A handle from what the transaction codec (this or an older version) wrote; {@code where} for messages. */
  public T decode(byte[] bytes, int version, String where) {
    return decode(transactionCodec, bytes, version, "transaction handle", where);
  }

  private <X> X decode(Codec<X> codec, byte[] bytes, int version, String what, String where) {
    X decoded;
    try {
      decoded = codec.decode(bytes, version);
    } catch (Exception e) {
      throw new FatalTwoPhaseException("participant '" + name + "' cannot decode its " + what + " (codec version "
          + version + ") from " + where + ": " + e.getMessage() + "; use a release of the participant whose codec "
          + "reads this version", e, -1, name);
    }
    if (decoded == null) {
      throw new FatalTwoPhaseException("participant '" + name + "': its codec decoded its " + what + " (codec "
          + "version " + version + ") from " + where + " as null", null, -1, name);
    }
    return decoded;
  }

  // ---------------------------------------------------------------- commit and abort

  /**
   * Commits {@code handle} of decided checkpoint {@code checkpointId}, begun at {@code begunAt},
   * and says what happened; see {@link CommitRules} for what each outcome means.
   *
   * @throws RetriableTwoPhaseException if the commit failed and may be tried again
   * @throws TransactionLostException if the participant can no longer commit it
   * @throws CommitOutcomeUnknownException if the participant cannot tell, and the rules stop
   * @throws FatalTwoPhaseException if the participant says so, or broke the SPI
   */
  public Committed commit(T handle, long checkpointId, long begunAt, CommitCall call) {
    Duration age = Duration.ofMillis(Math.max(0, frontEnd.clock().millis() - begunAt));
    warnIfOld(checkpointId, handle, age);
    String method = call == CommitCall.LIVE ? "commit" : "recoverAndCommit";
    CommitOutcome outcome;
    try {
      outcome = call == CommitCall.LIVE ? participant.commit(handle) : participant.recoverAndCommit(handle);
    } catch (CommitOutcomeUnknownException e) {
      if (frontEnd.rules().continueAfterUnknownCommitOutcome()) {
        frontEnd.log().error("{}: participant '{}' cannot tell whether transaction {} of checkpoint {} committed; "
            + "taking it as done as configured (continueAfterUnknownCommitOutcome): if it did not commit, its "
            + "records are missing there while other participants may show theirs. {}", frontEnd.label(), name,
            handle, checkpointId, e.getMessage());
        return Committed.UNKNOWN_IGNORED;
      }
      throw e;
    } catch (FatalTwoPhaseException e) {
      throw e;
    } catch (Exception e) {
      // As in Flink, only recovery gives up on a failing old transaction; a running front-end
      // retries, since a transient failure may still pass.
      if (call == CommitCall.RECOVERY && frontEnd.rules().ignorable(timeout, age)) {
        logIgnoredLoss(checkpointId, handle, age, e);
        return Committed.LOST_IGNORED;
      }
      throw new RetriableTwoPhaseException(method + " of " + handle + " (checkpoint " + checkpointId
          + ") failed in participant '" + name + "' of " + frontEnd.label() + ": " + e.getMessage() + "; "
          + (call == CommitCall.RECOVERY ? frontEnd.advice().retry() : "the transaction stays pending and is retried"),
          e, checkpointId, name);
    }
    if (outcome == null) {
      throw returnedNull(method + "(" + handle + ")", "a CommitOutcome", checkpointId);
    }
    return switch (outcome) {
      case COMMITTED -> Committed.COMMITTED;
      case ALREADY_COMMITTED -> Committed.ALREADY_COMMITTED;
      case LOST -> lost(handle, checkpointId, age);
    };
  }

  private Committed lost(T handle, long checkpointId, Duration age) {
    if (frontEnd.rules().ignorable(timeout, age)) {
      logIgnoredLoss(checkpointId, handle, age, null);
      return Committed.LOST_IGNORED;
    }
    throw new TransactionLostException(frontEnd.label() + ": transaction " + handle + " of decided checkpoint "
        + checkpointId + " can no longer be committed in participant '" + name + "': its records are missing "
        + "there while other participants may show theirs. " + CommitRules.whyLost(timeout, age), checkpointId, name);
  }

  /**
   * Aborts {@code handle}; a failure is logged (the participant's start-up clean-up or the
   * resource's timeout removes it).
   *
   * @return the {@link Error} the abort threw, or null
   */
  public Error abortQuietly(T handle, long checkpointId) {
    try {
      participant.abort(handle);
      frontEnd.log().debug("{}: aborted {} in {} (checkpoint {})", frontEnd.label(), handle, name, checkpointId);
      return null;
    } catch (Exception e) {
      frontEnd.log().warn("{}: abort of {} in participant '{}' (checkpoint {}) failed; the participant's start-up "
          + "clean-up or the resource's timeout will remove it", frontEnd.label(), handle, name, checkpointId, e);
      return null;
    } catch (Error e) {
      frontEnd.log().error("{}: abort of {} in participant '{}' (checkpoint {}) threw {}; the participant's "
          + "start-up clean-up or the resource's timeout will remove it", frontEnd.label(), handle, name,
          checkpointId, e, e);
      return e;
    }
  }

  /**
   * Tells a retirement listener that {@code handles} will never be committed again; a failure is
   * logged (it cleans them up at its next start).
   */
  public void retire(List<T> handles, long upToCheckpointId) {
    if (retirement == null || handles.isEmpty()) {
      return;
    }
    try {
      retirement.onRetired(handles);
    } catch (Exception | Error e) {
      frontEnd.log().warn("{}: participant '{}' failed to retire {} handle(s) (up to checkpoint {}); it cleans "
          + "them up at its next start", frontEnd.label(), name, handles.size(), upToCheckpointId, e);
    }
  }

  /** Tells a retirement listener that every transaction of earlier incarnations is retired. */
  public void earlierIncarnationsRetired() {
    if (retirement == null) {
      return;
    }
    try {
      retirement.onEarlierIncarnationsRetired(context());
    } catch (Exception | Error e) {
      frontEnd.log().warn("{}: participant '{}' failed to retire the transactions of earlier incarnations; it may "
          + "try again at its next start", frontEnd.label(), name, e);
    }
  }

  /**
   * Closes the participant; an exception is logged.
   *
   * @return the {@link Error} {@code close()} threw, or null
   */
  public Error closeQuietly() {
    try {
      participant.close();
      return null;
    } catch (Exception e) {
      frontEnd.log().warn("{}: closing participant '{}' failed", frontEnd.label(), name, e);
      return null;
    } catch (Error e) {
      frontEnd.log().error("{}: closing participant '{}' threw {}", frontEnd.label(), name, e, e);
      return e;
    }
  }

  // ---------------------------------------------------------------- the rules

  private void logIgnoredLoss(long checkpointId, Object handle, Duration age, Exception e) {
    frontEnd.log().error("{}: transaction {} of checkpoint {} in participant '{}' could not be committed and is "
        + "older than its timeout ({} ms >= {} ms); ignoring it as configured. Data loss might have occurred.",
        frontEnd.label(), handle, checkpointId, name, age.toMillis(), timeout.toMillis(), e);
  }

  private void warnIfOld(long checkpointId, Object handle, Duration age) {
    double ratio = frontEnd.rules().timeoutWarningRatio();
    if (ratio < 0 || timeout == null || age.toMillis() < ratio * timeout.toMillis()) {
      return;
    }
    frontEnd.log().warn("{}: transaction {} of checkpoint {} in participant '{}' is {} ms old, {}% of its timeout "
        + "of {} ms; it may expire before it is committed", frontEnd.label(), handle, checkpointId, name,
        age.toMillis(), Math.round(100.0 * age.toMillis() / timeout.toMillis()), timeout.toMillis());
    frontEnd.listener().onTransactionTimeoutWarning(new CoordinatorListener.TimeoutWarning(
        frontEnd.coordinatorId(), checkpointId, name, String.valueOf(handle), age, timeout));
  }

  private RetriableTwoPhaseException retriable(String what, Exception e, long checkpointId) {
    return new RetriableTwoPhaseException(what + " failed in participant '" + name + "' of " + frontEnd.label()
        + ": " + e.getMessage() + "; " + frontEnd.advice().retry(), e, checkpointId, name);
  }

  private FatalTwoPhaseException returnedNull(String call, String expected, long checkpointId) {
    return new FatalTwoPhaseException("participant '" + name + "' of " + frontEnd.label() + " returned null from "
        + call + "; it must return " + expected, null, checkpointId, name);
  }

  @Override
  public String toString() {
    return name;
  }
}
