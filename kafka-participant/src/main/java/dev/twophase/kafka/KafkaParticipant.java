package dev.twophase.kafka;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.twophase.AbortOutcome;
import dev.twophase.Codec;
import dev.twophase.CommitOutcome;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FaultInjector;
import dev.twophase.FencedException;
import dev.twophase.Participant;
import dev.twophase.ParticipantContext;
import dev.twophase.RecordWriter;
import dev.twophase.RecoveryContext;
import dev.twophase.RetirementListener;
import dev.twophase.TransactionContext;
import dev.twophase.Writable;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.kafka.internal.BrokerTransactionView;
import dev.twophase.kafka.internal.KafkaTransactionCodec;
import dev.twophase.kafka.internal.LingeringTransactions;
import dev.twophase.kafka.internal.ProducerSettings;
import dev.twophase.kafka.internal.ProducerState;
import dev.twophase.kafka.internal.RecordSender;
import dev.twophase.kafka.internal.ReflectiveTransactionResumer;
import dev.twophase.kafka.internal.StartupChecks;
import dev.twophase.kafka.internal.TransactionFinisher;
import dev.twophase.kafka.internal.TransactionResumer;
import dev.twophase.kafka.internal.TransactionalIdPool;
import dev.twophase.kafka.internal.TransactionalIdScheme;
import dev.twophase.kafka.internal.TransactionalProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once Kafka output: a participant whose transactions are Kafka producer transactions.
 *
 * <p>Each transaction runs on a transactional producer of a bounded pool of transactional ids of
 * this incarnation, {@code <prefix>-<coordinator's transaction name prefix>tid-e<owner epoch>-<n>}:
 * reused from transaction to transaction, held by one transaction at a time until the coordinator
 * retires its handle, and never used by another incarnation, so that an earlier owner still running
 * (a zombie) cannot fence or abort a newer owner's transactions. {@link #preCommit} flushes (every
 * send acknowledged, {@code acks=all}) and returns the handle, {@link KafkaTransaction}:
 * transactional id, producer id, epoch and the transaction-version-2 flag, from which a new process
 * commits the transaction ({@link #recoverAndCommit}) through a producer resumed with them, on the
 * handle's id. Start-up aborts what earlier incarnations left open on their ids, after the decided
 * transactions were committed. See {@code docs/kafka-participant.md}.
 *
 * <p>Outcomes are never guessed: a commit that fails ambiguously is settled by the broker's view
 * ({@code Admin.describeTransactions}); a transaction the broker expired reports
 * {@link CommitOutcome#LOST}; a producer fenced by another one throws {@link FencedException};
 * if the broker cannot tell, {@link KafkaTransactionUndecidedException} (the coordinator retries).
 *
 * <p>Threads: {@link #beginTransaction}, the writers, {@link #preCommit} and {@link #abort} on the
 * application thread, {@link #commit} on the committer thread, concurrently for different
 * transactions; each transaction has a producer of its own. {@link #close} closes every producer,
 * its I/O thread and sockets, and the admin client; so does every failure path that gives a
 * producer up.
 *
 * @param <IN> the application's record type
 */
@PublicEvolving
public final class KafkaParticipant<IN>
    implements Participant<KafkaTransaction, Void>, Writable<IN, KafkaTransaction>, RetirementListener<KafkaTransaction>,
        AutoCloseable {

  static final String POOL_SIZE_SETTING = "KafkaParticipant.Builder.transactionalIdPoolSize (or the "
      + "coordinator's maxPendingCheckpoints, from which the default size follows)";
  static final int DEFAULT_POOL_SIZE_UNBOUNDED = 16;

  private static final Logger LOG = LoggerFactory.getLogger(KafkaParticipant.class);

  private final ProducerSettings settings;
  private final RecordMapper<IN> mapper;
  private final String idPrefix;
  private final int poolSizeSetting;
  private final Duration idWait;
  private final ConsumedOffsets consumedOffsets;
  private final Duration checkpointInterval;
  private final FaultInjector faults;
  private final Duration closeTimeout;
  private final Duration adminTimeout;
  private final TransactionResumer resumer;

  /** Producers of this process's open and pre-committed transactions, by transaction name. */
  private final Map<String, TransactionalProducer> live = new ConcurrentHashMap<>();
  /** Producers ready for their id's next transaction (transaction version 2 only), by id. */
  private final Map<String, TransactionalProducer> idle = new ConcurrentHashMap<>();
  /** Ids of handles recovered at start-up, held until earlier incarnations are retired. */
  private final Map<String, String> recovered = new ConcurrentHashMap<>();

  private final Object lifecycle = new Object();
  private volatile TransactionalIdPool pool;
  private volatile String name = "kafka participant";
  /** Created on first use, closed by {@link #close()}; guarded by {@code lifecycle}. */
  @GuardedBy("lifecycle")
  private Admin admin;
  /** Created on first use, dropped by {@link #close()}; guarded by {@code lifecycle}. */
  @GuardedBy("lifecycle")
  private TransactionFinisher finisher;
  private volatile boolean closed;

  private KafkaParticipant(Builder<IN> b) {
    this.settings = new ProducerSettings(b.producerSettings);
    this.mapper = b.mapper;
    this.idPrefix = b.idPrefix;
    this.poolSizeSetting = b.poolSize;
    this.idWait = b.idWait;
    this.consumedOffsets = b.consumedOffsets;
    this.checkpointInterval = b.checkpointInterval;
    this.faults = b.faults;
    this.closeTimeout = b.closeTimeout;
    this.adminTimeout = b.adminTimeout;
    this.resumer = ReflectiveTransactionResumer.load();
  }

  /** A builder on the producer settings ({@code bootstrap.servers} and security at least). */
  public static <IN> Builder<IN> builder(Map<String, ?> producerSettings) {
    return new Builder<>(producerSettings);
  }

  /**
   * The transactional ids of this incarnation's pool, for ACLs and operations (a
   * {@code TransactionalId} ACL on the prefix {@code <prefix>-} covers them and those of every other
   * incarnation); empty until the coordinator started the participant (the ids depend on its
   * identity and owner epoch).
   */
  public List<String> transactionalIds() {
    TransactionalIdPool p = pool;
    return p == null ? List.of() : p.ids();
  }

  @Override
  public Codec<KafkaTransaction> transactionCodec() {
    return KafkaTransactionCodec.INSTANCE;
  }

  @Override
  public Optional<Duration> transactionTimeout() {
    return Optional.of(settings.transactionTimeout());
  }

  @Override
  public KafkaTransaction beginTransaction(TransactionContext<Void> context) throws Exception {
    TransactionalIdPool ids = pool(context);
    String txName = context.transactionName();
    String id = ids.acquire(txName);
    TransactionalProducer producer = idle.remove(id);
    boolean begun = false;
    try {
      if (producer == null) {
        producer = TransactionalProducer.open(settings, id, resumer);
        producer.init();
      }
      ProducerState s = producer.begin();
      KafkaTransaction t = new KafkaTransaction(txName, id, s.producerId(), s.epoch(), s.transactionV2(), false);
      live.put(txName, producer);
      begun = true;
      return t;
    } catch (ProducerFencedException e) {
      throw fenced("beginning " + txName + " on " + id, e);
    } finally {
      if (!begun) {
        if (producer != null) {
          producer.close(closeTimeout);
        }
        ids.releaseIfHeldBy(id, txName); // never returned, so never logged
      }
    }
  }

  @Override
  public RecordWriter<IN> writerFor(KafkaTransaction transaction) {
    TransactionalProducer producer = producerOf(transaction, "write to");
    return new RecordSender<>(name, transaction, producer, mapper, settings.maxRequestSize());
  }

  @Override
  public KafkaTransaction preCommit(KafkaTransaction transaction) throws Exception {
    TransactionalProducer producer = producerOf(transaction, "pre-commit");
    try {
      if (consumedOffsets != null) {
        var offsets = consumedOffsets.offsets();
        if (!offsets.isEmpty()) {
          producer.sendOffsets(offsets, consumedOffsets.groupMetadata());
        }
      }
      ProducerState s = producer.flush();
      faults.reached(KafkaPoints.AFTER_FLUSH);
      return new KafkaTransaction(transaction.name(), transaction.transactionalId(), s.producerId(), s.epoch(),
          s.transactionV2(), s.started());
    } catch (ProducerFencedException e) {
      throw fenced("pre-committing " + transaction, e);
    } catch (InvalidProducerEpochException e) {
      throw fencedOr(producer, "pre-committing " + transaction, e);
    } catch (CommitFailedException | FencedInstanceIdException e) {
      throw new FencedException(name + ": the consumer group rejected the input offsets of " + transaction + " ("
          + e + "): this instance's group generation is stale, its partitions belong to another instance now. "
          + "Stop this coordinator; the other instance goes on from the committed offsets", e);
    }
  }

  @Override
  public CommitOutcome commit(KafkaTransaction transaction) throws Exception {
    TransactionalProducer producer = live.remove(transaction.name());
    if (producer == null) {
      return finisher().commitResumed(transaction);
    }
    TransactionFinisher.LiveCommit result;
    try {
      result = finisher().commitLive(producer, transaction);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      live.put(transaction.name(), producer); // the retry commits on the same producer
      throw e;
    }
    if (result.producerUsable()) {
      recycle(transaction, producer);
    }
    return result.outcome();
  }

  /**
   * Aborts on the transaction's producer, or from the handle if this process no longer has it.
   * The id is free again right after: an aborted handle is never committed, and aborting it again
   * from a later process finds a later transaction of the id at another epoch, which it leaves alone.
   */
  @Override
  public void abort(KafkaTransaction transaction) throws Exception {
    TransactionalProducer producer = live.remove(transaction.name());
    try {
      if (producer == null) {
        finisher().abortResumed(transaction);
        return;
      }
      boolean usable = false;
      try {
        producer.abort();
        usable = true;
      } finally {
        if (usable) {
          recycle(transaction, producer);
        } else {
          producer.close(closeTimeout); // the broker aborts it: the id's next initTransactions() or its timeout
        }
      }
    } finally {
      TransactionalIdPool ids = pool;
      if (ids != null && ids.indexOf(transaction.transactionalId()) >= 0) {
        ids.releaseIfHeldBy(transaction.transactionalId(), transaction.name());
      }
    }
  }

  @Override
  public CommitOutcome recoverAndCommit(KafkaTransaction transaction) throws Exception {
    holdRecovered(transaction);
    return finisher().commitResumed(transaction);
  }

  @Override
  public AbortOutcome recoverAndAbort(KafkaTransaction transaction) throws Exception {
    holdRecovered(transaction);
    return finisher().abortResumed(transaction);
  }

  @Override
  public void finishRecoveringContext(RecoveryContext<KafkaTransaction, Void> context) throws Exception {
    TransactionalIdPool ids = pool(context);
    Admin a = admin();
    String base = TransactionalIdScheme.base(idPrefix, context.transactionNamePrefix());
    Set<String> open = new LingeringTransactions(a, adminTimeout).open(base, context.ownerEpoch(),
        knownIds(base, context.handledTransactions(), ids.size()));
    for (String id : open) {
      finisher().fence(id); // aborts it; every decided transaction was committed before this call
      LOG.info("{}: aborted the transaction an earlier incarnation left open on {}", name, id);
      faults.reached(KafkaPoints.AFTER_LINGERING_ABORT);
    }
    StartupChecks.warnAboutTimeouts(name, a, adminTimeout, settings.transactionTimeout(),
        checkpointInterval != null ? checkpointInterval : context.checkpointInterval().orElse(null));
  }

  /**
   * The ids a broker that cannot list transactions is asked about: those of the handled handles,
   * and the first {@code size} ids of each epoch they show (the incarnation that wrote the last
   * state record is among them: its record holds its open transaction).
   */
  static Set<String> knownIds(String base, List<KafkaTransaction> handled, int size) {
    Set<String> known = new TreeSet<>();
    Set<Long> epochs = new TreeSet<>();
    for (KafkaTransaction t : handled) {
      TransactionalIdScheme.Parsed p = TransactionalIdScheme.parse(base, t.transactionalId());
      if (p != null) {
        known.add(t.transactionalId());
        epochs.add(p.epoch());
      }
    }
    for (long epoch : epochs) {
      String start = TransactionalIdScheme.prefixOf(base, epoch);
      for (int i = 0; i < size; i++) {
        known.add(start + i);
      }
    }
    return known;
  }

  @Override
  public void onRetired(List<KafkaTransaction> transactions) {
    TransactionalIdPool ids = pool;
    if (ids == null) {
      return;
    }
    for (KafkaTransaction t : transactions) {
      if (ids.indexOf(t.transactionalId()) >= 0) {
        ids.releaseIfHeldBy(t.transactionalId(), t.name());
      }
    }
  }

  @Override
  public void onEarlierIncarnationsRetired(ParticipantContext context) {
    TransactionalIdPool ids = pool(context);
    for (Map.Entry<String, String> e : new ArrayList<>(recovered.entrySet())) {
      if (ids.indexOf(e.getKey()) >= 0) {
        ids.releaseIfHeldBy(e.getKey(), e.getValue());
      }
      recovered.remove(e.getKey(), e.getValue());
    }
  }

  @Override
  public void close() {
    closed = true;
    TransactionalIdPool ids = pool;
    if (ids != null) {
      ids.close();
    }
    List<TransactionalProducer> inFlight = new ArrayList<>(live.values());
    List<TransactionalProducer> ready = new ArrayList<>(idle.values());
    live.clear();
    idle.clear();
    // Pre-committed transactions stay as they are, the next start commits them: a graceful close
    // would abort them, so their producers are closed at once (their records are all acknowledged).
    for (TransactionalProducer p : inFlight) {
      p.close(Duration.ZERO);
    }
    for (TransactionalProducer p : ready) {
      p.close(closeTimeout);
    }
    synchronized (lifecycle) {
      if (admin != null) {
        try {
          admin.close(closeTimeout);
        } catch (RuntimeException e) {
          LOG.warn("{}: closing the admin client failed", name, e);
        }
        admin = null;
        finisher = null;
      }
    }
  }

  // ------------------------------------------------------------------ internals

  /**
   * A recovered handle's id stays held until earlier incarnations are retired: a crash before the
   * start-up record is durable recovers the handle again, and its id must still show its transaction.
   * A handle of an earlier incarnation carries that incarnation's epoch, so its id is never one of
   * this pool's and is committed or aborted on that id ({@link TransactionFinisher}); the hold
   * matters only for a handle of this pool's epoch, which a coordinator never recovers.
   */
  private void holdRecovered(KafkaTransaction t) {
    String holder = "recovered " + t.name();
    recovered.put(t.transactionalId(), holder);
    TransactionalIdPool ids = pool;
    if (ids != null && ids.indexOf(t.transactionalId()) >= 0 && !ids.isHeld(t.transactionalId())) {
      ids.hold(t.transactionalId(), holder);
    }
  }

  private void recycle(KafkaTransaction t, TransactionalProducer producer) {
    // TV2 ends each transaction at a new epoch, so a producer id and epoch name one transaction
    // even when the producer is reused. TV1 keeps the epoch: a new producer (new epoch) per
    // transaction keeps that true.
    if (t.transactionV2() && !closed && idle.putIfAbsent(t.transactionalId(), producer) == null) {
      return;
    }
    producer.close(closeTimeout);
  }

  private TransactionalProducer producerOf(KafkaTransaction t, String what) {
    TransactionalProducer p = live.get(t.name());
    if (p == null) {
      throw new dev.twophase.FatalTwoPhaseException(name + ": cannot " + what + " " + t
          + ": it is not open in this process (the protocol never asks this; a bug in the caller)");
    }
    return p;
  }

  /**
   * What an {@link InvalidProducerEpochException} means: the broker bumped the producer's epoch,
   * either because another producer registered the id ({@code initTransactions()}: a newer owner
   * of the coordinator aborting what this one left open) or because the transaction coordinator
   * aborted the transaction when it outlived {@code transaction.timeout.ms}. The abort that must
   * follow tells which: refused as fenced, this owner was superseded ({@link FencedException});
   * accepted, the transaction timed out and {@code e} is returned, for a failed checkpoint.
   */
  private Exception fencedOr(TransactionalProducer producer, String what, InvalidProducerEpochException e) {
    try {
      producer.abort();
    } catch (ProducerFencedException fencedToo) {
      fencedToo.addSuppressed(e);
      return fenced(what, fencedToo);
    } catch (RuntimeException other) {
      e.addSuppressed(other);
    }
    return e;
  }

  private FencedException fenced(String what, ProducerFencedException e) {
    return new FencedException(name + ": fenced while " + what + ": another producer registered the same "
        + "transactional id (a newer incarnation of this coordinator, or another application with the same "
        + "transactional id prefix). Stop this one", e);
  }

  private TransactionalIdPool pool(ParticipantContext context) {
    TransactionalIdPool p = pool;
    if (p != null) {
      return p;
    }
    synchronized (lifecycle) {
      if (pool == null) {
        name = "Kafka participant '" + context.participantName() + "' of coordinator '" + context.coordinatorId() + "'";
        int size = poolSizeSetting > 0 ? poolSizeSetting : defaultPoolSize(context.maxPendingCheckpoints());
        TransactionalIdPool created = new TransactionalIdPool(idPrefix, context.transactionNamePrefix(),
            context.ownerEpoch(), size, idWait, POOL_SIZE_SETTING);
        for (Map.Entry<String, String> e : recovered.entrySet()) {
          if (created.indexOf(e.getKey()) >= 0 && !created.isHeld(e.getKey())) {
            created.hold(e.getKey(), e.getValue());
          }
        }
        pool = created;
      }
      return pool;
    }
  }

  /**
   * Ids held at once: the transaction being begun and the one being pre-committed, the decided
   * ones not yet committed (at most {@code maxPendingCheckpoints}), and the committed ones whose
   * retirement is still on its way (the coordinator retires a handle once a later state record is
   * durable, on its committer thread: up to {@code maxPendingCheckpoints} more), and one spare.
   */
  static int defaultPoolSize(int maxPendingCheckpoints) {
    return maxPendingCheckpoints <= 0 ? DEFAULT_POOL_SIZE_UNBOUNDED : 2 * maxPendingCheckpoints + 3;
  }

  private TransactionFinisher finisher() {
    synchronized (lifecycle) {
      if (closed && finisher == null) {
        throw new FatalTwoPhaseException(name + " is closed: a participant serves one coordinator (or sink task) and "
            + "is closed with it; build a new participant for the next one");
      }
      if (finisher == null) {
        finisher = new TransactionFinisher(name, settings, resumer,
            new BrokerTransactionView(admin(), adminTimeout), faults, closeTimeout);
      }
      return finisher;
    }
  }

  private Admin admin() {
    synchronized (lifecycle) {
      if (admin == null) {
        admin = Admin.create(settings.forAdmin());
      }
      return admin;
    }
  }

  /** Builds a {@link KafkaParticipant}. */
  public static final class Builder<IN> {
    /** What {@link #transactionalIdPrefix} may hold, as its javadoc says. */
    private static final String ID_PREFIX_CHARS = "[A-Za-z0-9._-]+";

    private final Map<String, ?> producerSettings;
    private RecordMapper<IN> mapper;
    private String idPrefix;
    private int poolSize;
    private Duration idWait = Duration.ofSeconds(30);
    private ConsumedOffsets consumedOffsets;
    private Duration checkpointInterval;
    private FaultInjector faults = FaultInjector.none();
    private Duration closeTimeout = Duration.ofSeconds(10);
    private Duration adminTimeout = Duration.ofSeconds(30);

    private Builder(Map<String, ?> producerSettings) {
      this.producerSettings = Objects.requireNonNull(producerSettings, "producerSettings");
    }

    /** How an input record becomes a Kafka record (required); see {@link RecordMapper#toTopic}. */
    public Builder<IN> records(RecordMapper<IN> mapper) {
      this.mapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * The prefix of the transactional ids (required; letters, digits, {@code .}, {@code _},
     * {@code -}). Give each application its own: two applications with the same prefix, the same
     * coordinator id and participant name would fence each other.
     */
    public Builder<IN> transactionalIdPrefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (!prefix.matches(ID_PREFIX_CHARS)) {
        throw new IllegalArgumentException("transactionalIdPrefix '" + prefix + "' must be non-empty and "
            + "consist of letters, digits, '.', '_' and '-' only (it begins every transactional id of the "
            + "participant, and ACLs match it as a prefix)");
      }
      this.idPrefix = prefix;
      return this;
    }

    /**
     * How many transactional ids the pool has. Default: 2 x the coordinator's
     * {@code maxPendingCheckpoints} + 3 (the transactions being begun and pre-committed, the
     * pending ones, those committed but not yet retired, one spare), or 16 when pending
     * checkpoints are unbounded; then a coordinator with more than about 14 checkpoints waiting for
     * their commits runs out of ids (bound them with {@code maxPendingCheckpoints(n, BLOCK)}).
     */
    public Builder<IN> transactionalIdPoolSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("transactionalIdPoolSize must be at least 1, not " + size);
      }
      this.poolSize = size;
      return this;
    }

    /**
     * How long {@code beginTransaction} waits for a free id before it fails (default 30 s; 0: at
     * once). Ids come free as the committer thread retires committed handles.
     */
    public Builder<IN> transactionalIdWait(Duration wait) {
      this.idWait = Objects.requireNonNull(wait, "wait");
      return this;
    }

    /** KIP-447: commit these consumer positions in each transaction (Kafka as the only participant). */
    public Builder<IN> consumedOffsets(ConsumedOffsets offsets) {
      this.consumedOffsets = Objects.requireNonNull(offsets, "offsets");
      return this;
    }

    /**
     * The checkpoint interval, for the start-up warning about a {@code transaction.timeout.ms} not
     * longer than it. Not needed under a {@link dev.twophase.Coordinator} with
     * {@link dev.twophase.CoordinatorConfig.Builder#checkpointInterval}, whose interval the
     * participant reads from its context; set it where an engine takes the checkpoints (Flink, an
     * {@link dev.twophase.EmbeddedCoordinator}), and it overrides the coordinator's.
     */
    public Builder<IN> checkpointInterval(Duration interval) {
      this.checkpointInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /**
     * Testing knob: called at this participant's fault points, the ones {@link KafkaPoints} names.
     */
    public Builder<IN> faultInjector(FaultInjector injector) {
      this.faults = Objects.requireNonNull(injector, "injector");
      return this;
    }

    /** How long closing a producer waits for its I/O thread (default 10 s). */
    public Builder<IN> closeTimeout(Duration timeout) {
      this.closeTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** How long a question to the broker ({@code describeTransactions}, ...) may take (default 30 s). */
    public Builder<IN> adminTimeout(Duration timeout) {
      this.adminTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Checks the settings and that the {@code kafka-clients} on the class path can resume a
     * transaction in a new process. Opens nothing: producers and the admin client start with the
     * first transaction or recovery.
     *
     * @throws IllegalArgumentException a setting is missing or contradicts exactly-once; the
     *     message names it
     * @throws IncompatibleKafkaClientException the client lacks the internals resuming needs
     */
    public KafkaParticipant<IN> build() {
      if (mapper == null) {
        throw new IllegalArgumentException("KafkaParticipant.Builder: records(RecordMapper) is required: it says "
            + "how an input record becomes a Kafka record (topic, key, value), e.g. "
            + "RecordMapper.toTopic(topic, serializer)");
      }
      if (idPrefix == null) {
        throw new IllegalArgumentException("KafkaParticipant.Builder: transactionalIdPrefix(String) is required: "
            + "it begins every transactional id of the participant's producers; give each application its own "
            + "(letters, digits, '.', '_', '-'), or two applications fence each other");
      }
      return new KafkaParticipant<>(this);
    }
  }
}
