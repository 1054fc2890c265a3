package dev.twophase;

import dev.twophase.annotation.PublicEvolving;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable settings of a coordinator, made by {@link #custom()}. Each setting is checked when it is
 * set; settings that depend on the participants (timeout warnings need a timeout to warn about) are
 * checked when the coordinator is built. A bad setting fails with an
 * {@link IllegalArgumentException} that names it.
 *
 * <pre>{@code
 * CoordinatorConfig config = CoordinatorConfig.custom()
 *     .checkpointInterval(Duration.ofSeconds(5))
 *     .transactionTimeout(Duration.ofMinutes(15))
 *     .enableTransactionTimeoutWarnings(0.8)
 *     .build();
 * }</pre>
 */
@PublicEvolving
public final class CoordinatorConfig {

  private static final CoordinatorConfig DEFAULTS = custom().build();

  /** Kept as an Optional: every checkpoint hands it to the participants' contexts. */
  private final Optional<Duration> checkpointInterval;
  private final long checkpointEveryRecords;
  private final Duration transactionTimeout;
  private final double timeoutWarningRatio;
  private final boolean ignoreFailuresAfterTransactionTimeout;
  private final Duration commitInitialBackoff;
  private final Duration commitMaxBackoff;
  private final double commitBackoffMultiplier;
  private final Duration closeTimeout;
  private final Clock clock;
  private final FaultInjector faultInjector;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final int maxPendingCheckpoints;
  private final WhenPendingFull whenPendingFull;
  private final boolean continueAfterLostDecision;

  /** What a checkpoint does when {@link #maxPendingCheckpoints()} checkpoints await their commits. */
  public enum WhenPendingFull {
    /**
     * Wait until the oldest pending checkpoint is committed (or the coordinator fails or closes);
     * the application thread stops taking records meanwhile, which is the back-pressure. Only the
     * self-driving {@link Coordinator} can wait: its commits run on another thread.
     */
    BLOCK,
    /**
     * Refuse the checkpoint with a {@link PendingLimitExceededException} before anything is
     * pre-committed; the current transactions stay open and the checkpoint can be taken later.
     */
    FAIL
  }

  private CoordinatorConfig(Builder b) {
    this.checkpointInterval = Optional.ofNullable(b.checkpointInterval);
    this.checkpointEveryRecords = b.checkpointEveryRecords;
    this.transactionTimeout = b.transactionTimeout;
    this.timeoutWarningRatio = b.timeoutWarningRatio;
    this.ignoreFailuresAfterTransactionTimeout = b.ignoreFailuresAfterTransactionTimeout;
    this.commitInitialBackoff = b.commitInitialBackoff;
    this.commitMaxBackoff = b.commitMaxBackoff;
    this.commitBackoffMultiplier = b.commitBackoffMultiplier;
    this.closeTimeout = b.closeTimeout;
    this.clock = b.clock;
    this.faultInjector = b.faultInjector;
    this.ticker = b.ticker;
    this.scheduler = b.scheduler;
    this.maxPendingCheckpoints = b.maxPendingCheckpoints;
    this.whenPendingFull = b.whenPendingFull;
    this.continueAfterLostDecision = b.continueAfterLostDecision;
  }

  /** A builder with every setting at its default. */
  public static Builder custom() {
    return new Builder();
  }

  /** Every setting at its default: no automatic checkpoints, no timeout, system UTC clock. */
  public static CoordinatorConfig ofDefaults() {
    return DEFAULTS;
  }

  /** A builder starting from this config's settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.checkpointInterval = checkpointInterval.orElse(null);
    b.checkpointEveryRecords = checkpointEveryRecords;
    b.transactionTimeout = transactionTimeout;
    b.timeoutWarningRatio = timeoutWarningRatio;
    b.ignoreFailuresAfterTransactionTimeout = ignoreFailuresAfterTransactionTimeout;
    b.commitInitialBackoff = commitInitialBackoff;
    b.commitMaxBackoff = commitMaxBackoff;
    b.commitBackoffMultiplier = commitBackoffMultiplier;
    b.closeTimeout = closeTimeout;
    b.clock = clock;
    b.faultInjector = faultInjector;
    b.ticker = ticker;
    b.scheduler = scheduler;
    b.maxPendingCheckpoints = maxPendingCheckpoints;
    b.whenPendingFull = whenPendingFull;
    b.continueAfterLostDecision = continueAfterLostDecision;
    return b;
  }

  /** Time between automatic checkpoints taken by {@code maybeCheckpoint()}; empty if off. */
  public Optional<Duration> checkpointInterval() {
    return checkpointInterval;
  }

  /**
   * Records after which {@code maybeCheckpoint()} checkpoints, counted per participant's output
   * (the largest count decides); 0 if off.
   */
  public long checkpointEveryRecords() {
    return checkpointEveryRecords;
  }

  /**
   * Age (from {@code beginTransaction}) after which a participant's resource may have expired a
   * transaction; a participant's own {@link Participant#transactionTimeout()} takes precedence.
   */
  public Optional<Duration> transactionTimeout() {
    return Optional.ofNullable(transactionTimeout);
  }

  /** Warning ratio in [0, 1], or a negative number if warnings are off. */
  public double transactionTimeoutWarningRatio() {
    return timeoutWarningRatio;
  }

  public boolean ignoreFailuresAfterTransactionTimeout() {
    return ignoreFailuresAfterTransactionTimeout;
  }

  public Duration commitInitialBackoff() {
    return commitInitialBackoff;
  }

  public Duration commitMaxBackoff() {
    return commitMaxBackoff;
  }

  public double commitBackoffMultiplier() {
    return commitBackoffMultiplier;
  }

  /** How long {@code close()} waits for decided checkpoints to finish committing. */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  public Clock clock() {
    return clock;
  }

  /** Monotonic time for the checkpoint interval and for durations reported to listeners. */
  public Ticker ticker() {
    return ticker;
  }

  /** Delays the retries of failed commits. */
  public Scheduler scheduler() {
    return scheduler;
  }

  /**
   * The most decided checkpoints that may wait for their commits at once; 0 if unbounded (the
   * default). See {@link Builder#maxPendingCheckpoints(int, WhenPendingFull)}.
   */
  public int maxPendingCheckpoints() {
    return maxPendingCheckpoints;
  }

  /** What a checkpoint does when the pending limit is reached. */
  public WhenPendingFull whenPendingFull() {
    return whenPendingFull;
  }

  /** See {@link Builder#continueAfterLostDecision()}. */
  public boolean continueAfterLostDecision() {
    return continueAfterLostDecision;
  }

  /** Called at every {@link ProtocolPoint}; {@link FaultInjector#none()} unless a test sets one. */
  public FaultInjector faultInjector() {
    return faultInjector;
  }

  @Override
  public String toString() {
    return "CoordinatorConfig{checkpointInterval=" + checkpointInterval.orElse(null)
        + ", checkpointEveryRecords=" + checkpointEveryRecords
        + ", transactionTimeout=" + transactionTimeout
        + ", timeoutWarningRatio=" + timeoutWarningRatio
        + ", ignoreFailuresAfterTransactionTimeout=" + ignoreFailuresAfterTransactionTimeout
        + ", commitBackoff=" + commitInitialBackoff + ".." + commitMaxBackoff
        + " x" + commitBackoffMultiplier
        + ", closeTimeout=" + closeTimeout
        + ", maxPendingCheckpoints=" + maxPendingCheckpoints + " (" + whenPendingFull + ")"
        + ", continueAfterLostDecision=" + continueAfterLostDecision
        + ", clock=" + clock
        + ", ticker=" + ticker
        + ", scheduler=" + scheduler
        + ", faultInjector=" + faultInjector + '}';
  }

  /** Collects settings; {@link #build()} validates them together. */
  public static final class Builder {
    private Duration checkpointInterval;
    private long checkpointEveryRecords;
    private Duration transactionTimeout;
    private double timeoutWarningRatio = -1;
    private boolean ignoreFailuresAfterTransactionTimeout;
    private Duration commitInitialBackoff = Duration.ofMillis(100);
    private Duration commitMaxBackoff = Duration.ofSeconds(30);
    private double commitBackoffMultiplier = 2.0;
    private Duration closeTimeout = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();
    private FaultInjector faultInjector = FaultInjector.none();
    private Ticker ticker = Ticker.system();
    private Scheduler scheduler = Scheduler.system();
    private int maxPendingCheckpoints;
    private WhenPendingFull whenPendingFull = WhenPendingFull.BLOCK;
    private boolean continueAfterLostDecision;

    private Builder() {}

    /**
     * Checkpoint automatically when this much time passed since the last one, measured with the
     * {@link #ticker(Ticker) ticker}.
     */
    public Builder checkpointInterval(Duration interval) {
      requirePositive("checkpointInterval", interval);
      this.checkpointInterval = interval;
      return this;
    }

    /**
     * Checkpoint automatically once one participant's outputs took this many records since the
     * last checkpoint. Counted per participant, so an application that writes every input record
     * to each of its outputs checkpoints every {@code records} input records, and no transaction
     * grows beyond {@code records} records.
     */
    public Builder checkpointEveryRecords(long records) {
      if (records <= 0) {
        throw new IllegalArgumentException("checkpointEveryRecords must be > 0, was " + records);
      }
      this.checkpointEveryRecords = records;
      return this;
    }

    /** See {@link CoordinatorConfig#transactionTimeout()}. */
    public Builder transactionTimeout(Duration timeout) {
      requirePositive("transactionTimeout", timeout);
      this.transactionTimeout = timeout;
      return this;
    }

    /**
     * Logs a WARN (and emits an event) when a transaction's age at commit or recovery reaches
     * {@code ratio} x its timeout. 0 warns on every commit. Needs a transaction timeout.
     */
    public Builder enableTransactionTimeoutWarnings(double ratio) {
      if (!(ratio >= 0 && ratio <= 1)) {
        throw new IllegalArgumentException(
            "enableTransactionTimeoutWarnings ratio must be in [0, 1], was " + ratio);
      }
      this.timeoutWarningRatio = ratio;
      return this;
    }

    /**
     * Gives up, with an ERROR ("data loss might have occurred") instead of failing, on a decided
     * transaction older than its timeout that cannot be committed: at start-up when its
     * {@code recoverAndCommit} throws or reports {@link CommitOutcome#LOST}; while running only when
     * the participant reports {@code LOST} (a thrown commit is retried, as a transient failure may
     * pass). Off by default: such a transaction then fails start-up, or stops the coordinator, with
     * a {@link TransactionLostException}.
     */
    public Builder ignoreFailuresAfterTransactionTimeout() {
      this.ignoreFailuresAfterTransactionTimeout = true;
      return this;
    }

    /** Backoff between attempts to commit a decided transaction; retried until it succeeds. */
    public Builder commitRetryBackoff(Duration initial, Duration max, double multiplier) {
      requirePositive("commitRetryBackoff initial", initial);
      requirePositive("commitRetryBackoff max", max);
      if (max.compareTo(initial) < 0) {
        throw new IllegalArgumentException(
            "commitRetryBackoff max (" + max + ") must be >= initial (" + initial + ")");
      }
      if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
        throw new IllegalArgumentException(
            "commitRetryBackoff multiplier must be a finite number >= 1, was " + multiplier);
      }
      this.commitInitialBackoff = initial;
      this.commitMaxBackoff = max;
      this.commitBackoffMultiplier = multiplier;
      return this;
    }

    /** How long {@code close()} waits for pending commits before leaving them to recovery. */
    public Builder closeTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "closeTimeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("closeTimeout must be >= 0, was " + timeout);
      }
      this.closeTimeout = timeout;
      return this;
    }

    /**
     * The wall clock for transaction ages, which are measured across processes (a recovered
     * transaction's age counts from its begin in the crashed process). Inject a fixed one in tests.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Monotonic time for the checkpoint interval and reported durations; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How retries of failed commits wait out their backoff; default {@link Scheduler#system()}. */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Bounds the decided checkpoints that may wait for their commits at once, so that a resource
     * that stops committing (a database away, say) cannot make them pile up without end: with
     * {@code max} pending, the next checkpoint waits ({@link WhenPendingFull#BLOCK}) or is refused
     * ({@link WhenPendingFull#FAIL}). Participants see the bound in
     * {@link ParticipantContext#maxPendingCheckpoints()} (a Kafka participant sizes its pool of
     * transactional ids from it). Default: unbounded.
     */
    public Builder maxPendingCheckpoints(int max, WhenPendingFull whenFull) {
      if (max < 1) {
        throw new IllegalArgumentException("maxPendingCheckpoints must be >= 1, was " + max);
      }
      this.maxPendingCheckpoints = max;
      this.whenPendingFull = Objects.requireNonNull(whenFull, "whenFull");
      return this;
    }

    /**
     * Lets start-up go on when a participant shows committed a transaction that recovery was about
     * to abort (see {@link DecisionLostException}): the transaction is left committed, an ERROR is
     * logged, and the application resumes from the position the log holds, so the records after it
     * are written a second time. Off by default: start-up then fails with
     * {@link DecisionLostException} before it restores the application.
     */
    public Builder continueAfterLostDecision() {
      this.continueAfterLostDecision = true;
      return this;
    }

    /**
     * Testing knobs: the coordinator calls {@code injector} at every {@link ProtocolPoint}, so that
     * a crash test can halt the JVM there. Leave it unset in production.
     */
    public Builder faultInjector(FaultInjector injector) {
      this.faultInjector = Objects.requireNonNull(injector, "faultInjector");
      return this;
    }

    public CoordinatorConfig build() {
      // Warnings and ignore-after-timeout need a timeout, but not necessarily this one: a
      // participant may declare its own. The coordinator's builder checks that one applies.
      return new CoordinatorConfig(this);
    }

    private static void requirePositive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
    }
  }
}
