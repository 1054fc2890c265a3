package dev.twophase.kafka;

import dev.twophase.CoordinatorHeldException;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.FencedException;
import dev.twophase.RetriableTwoPhaseException;
import dev.twophase.StateLog;
import dev.twophase.StateLogCorruptedException;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.kafka.internal.statelog.Claim;
import dev.twophase.kafka.internal.statelog.ClientSettings;
import dev.twophase.kafka.internal.statelog.CoordinatorView;
import dev.twophase.kafka.internal.statelog.LogContext;
import dev.twophase.kafka.internal.statelog.LogSetup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;

/**
 * A shared {@link StateLog} on a compacted Kafka topic: any process that opens it can claim any
 * of its coordinators, and so recover one whose owner's machine is lost.
 *
 * <pre>{@code
 * try (KafkaStateLog log = KafkaStateLog.builder(Map.of("bootstrap.servers", "kafka:9092"), "app-state")
 *     .ownerName("worker-3")
 *     .build()) {
 *   StateLog.CoordinatorLog partition0 = log.open("partition-0");
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Records.</b> Each coordinator's records go to one partition of the topic (the murmur2
 * hash of its id), under keys of their own so that compaction keeps the latest of each: {@code
 * owner/<id>} (who claimed it, the epoch, released or not), {@code state/<n>/<id>} (chunk {@code
 * n} of its last state: states are cut into chunks of 512 KiB, all written in one transaction, so
 * that {@link StateLog#MAX_STATE_BYTES} fits the default {@code max.message.bytes}) and {@code
 * done/<id>} (its highest completion mark). The key {@code log-id} in partition 0 holds the
 * {@link #logId()} and the partition count. Every value is a binary frame with a version, the
 * log id, the epoch, the checkpoint id and a CRC32C over key and value.
 *
 * <p><b>Fencing.</b> A claimed coordinator has a transactional producer of its own, with the
 * {@code transactional.id} {@code <prefix>.<topic>/c/<coordinator id>} (the id escaped, see
 * {@link Builder#transactionalIdPrefix}). {@link #open} calls {@code initTransactions()} on it,
 * which makes the broker finish the previous owner's transaction and fence its producer in any
 * process: that owner's next append fails with {@link FencedException}. It then reads the
 * partition at {@code read_committed} to its end, and so sees everything the previous owner
 * committed, and commits an owner record with an epoch one above every earlier one. Each append is
 * a transaction of that producer; its commit is the decision. The cost: one producer (a thread and
 * connections) per open coordinator, and appends of different coordinators never share a
 * transaction (no group commit: see docs/state-log-kafka.md for figures).
 *
 * <p>Why not one producer per process, fenced by the consumer group's generation (KIP-447)? That
 * fences a zombie only through {@code sendOffsetsToTransaction} with the group metadata of a
 * consumer whose partitions were reassigned; it needs the log's users to be members of one
 * consumer group whose assignment is the coordinators' ownership. A state log serves coordinators
 * that are not Kafka consumers at all (a JDBC pipeline, a file reader), and a claim must fence a
 * named coordinator on demand, not at a rebalance; so each coordinator fences through a
 * transactional id of its own.
 *
 * <p><b>Refusal and take-over.</b> A claim is refused with {@link CoordinatorHeldException} if
 * the last owner record says another owner (by {@link Builder#ownerName}) holds the coordinator
 * and has not released it, unless {@link Builder#takeOver(boolean)}. Since {@code
 * initTransactions()} fences whoever holds the id, the claim first looks at the owner record
 * (without fencing), and only then fences; another claim that slips in between is fenced all the
 * same, and the refusal that follows says so. Closing a view (or the log) writes a released
 * owner record.
 *
 * <p><b>Completion marks</b> are not written at once: each rides in the next append's
 * transaction, or in the release record when the view closes. A crash loses those since the last
 * append, which only costs an idempotent re-commit.
 *
 * <p><b>Failures.</b> An append whose commit fails for any reason but fencing (the broker went
 * away, a timeout) has an unknown outcome: it throws {@link FatalTwoPhaseException}, its producer
 * is closed, the view takes no further append, nothing is retried. Damage (a checksum, a frame, a
 * last state with a chunk missing) is {@link StateLogCorruptedException} naming the topic,
 * partition, offset and coordinator. Opening refuses a topic whose settings can lose decided
 * checkpoints (see {@link Builder#build()}).
 *
 * <p>Thread-safe; so are its views. {@link #close()} releases every open coordinator and closes
 * every producer, consumer and the admin client.
 */
@PublicEvolving
public final class KafkaStateLog implements StateLog {

  /** Default {@link Builder#transactionalIdPrefix}. */
  public static final String DEFAULT_TRANSACTIONAL_ID_PREFIX = "twophase-log";

  /** Default {@link Builder#timeout}: 60 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  private static final Object CLAIMING = new Object();

  private final LogContext ctx;
  private final Admin admin;
  private final ConcurrentMap<String, Object> views = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private KafkaStateLog(LogContext ctx, Admin admin) {
    this.ctx = ctx;
    this.admin = admin;
  }

  /**
   * A builder for a log on {@code topic}.
   *
   * @param clientProperties the Kafka client properties ({@code bootstrap.servers}, security,
   *     timeouts); each goes to the producers, consumers and admin client that know it. The log
   *     sets {@code transactional.id}, the serializers, {@code isolation.level} and forces {@code
   *     acks=all} and {@code enable.idempotence=true}; setting those otherwise is refused. The
   *     producers' {@code transaction.timeout.ms} defaults to 20 s (each transaction is one
   *     append); {@code max.block.ms} and {@code delivery.timeout.ms} bound how long an append
   *     waits for an unreachable broker before it fails
   */
  public static Builder builder(Map<String, ?> clientProperties, String topic) {
    return new Builder(clientProperties, topic);
  }

  /** Settings of a {@link KafkaStateLog}. */
  public static final class Builder {
    private final Map<String, Object> clientProperties;
    private final String topic;
    private String ownerName;
    private boolean takeOver;
    private int createPartitions;
    private short createReplicationFactor;
    private String transactionalIdPrefix = DEFAULT_TRANSACTIONAL_ID_PREFIX;
    private Duration timeout = DEFAULT_TIMEOUT;

    private Builder(Map<String, ?> clientProperties, String topic) {
      this.clientProperties = Map.copyOf(Objects.requireNonNull(clientProperties,
          "clientProperties"));
      this.topic = Objects.requireNonNull(topic, "topic");
      if (topic.isEmpty() || topic.length() > 249 || !topic.matches("[a-zA-Z0-9._-]+")) {
        throw new IllegalArgumentException("not a Kafka topic name: '" + topic + "'");
      }
    }

    /**
     * The name this process claims coordinators under, which a refused claim reports as the
     * holder; default {@code <pid>@<host>/<n>}, {@code n} counting the logs built in this JVM.
     * A name must stand for one running owner at a time: an owner that finds a coordinator held
     * under its own name claims it without taking over (a restart of itself, say
     * {@code worker-3}, after a crash).
     */
    public Builder ownerName(String ownerName) {
      Objects.requireNonNull(ownerName, "ownerName");
      if (ownerName.isBlank()) {
        throw new IllegalArgumentException("ownerName must not be blank");
      }
      this.ownerName = ownerName;
      return this;
    }

    /**
     * Whether {@link #open} claims a coordinator that another owner holds and has not released
     * (default false: it is refused with {@link CoordinatorHeldException}). Taking over fences
     * the holder for good; use it when the holder is known to be gone (its machine was lost), or
     * where an orchestrator guarantees one owner per coordinator.
     */
    public Builder takeOver(boolean takeOver) {
      this.takeOver = takeOver;
      return this;
    }

    /**
     * Creates the topic at {@link #build()} if it does not exist, with {@code partitions}
     * partitions, {@code replicationFactor} replicas, {@code cleanup.policy=compact}, {@code
     * min.insync.replicas=min(2, replicationFactor)} and unclean leader election off. Default:
     * the topic must exist. The partition count can never change afterwards (coordinators are
     * placed by hash); choose it for the number of coordinators (more partitions: fewer
     * coordinators whose claims wait on each other's transactions).
     */
    public Builder createTopic(int partitions, short replicationFactor) {
      if (partitions < 1 || replicationFactor < 1) {
        throw new IllegalArgumentException("partitions and replicationFactor must be >= 1, were "
            + partitions + " and " + replicationFactor);
      }
      this.createPartitions = partitions;
      this.createReplicationFactor = replicationFactor;
      return this;
    }

    /**
     * The first part of the producers' transactional ids (default {@value
     * #DEFAULT_TRANSACTIONAL_ID_PREFIX}); a {@code TransactionalId} ACL on the prefix {@code
     * <prefix>.<topic>/} covers them all. A coordinator's id is {@code
     * <prefix>.<topic>/c/<coordinator id>} with the coordinator id's characters other than
     * {@code [A-Za-z0-9._-]} escaped as {@code %XX} (UTF-8 bytes); one longer than 400
     * characters is cut and ends with {@code ~} and 16 hex digits of the SHA-256 of the
     * coordinator id. The log id is created under {@code <prefix>.<topic>/log-id}.
     */
    public Builder transactionalIdPrefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (prefix.isEmpty() || prefix.length() > 100) {
        throw new IllegalArgumentException("transactionalIdPrefix must have 1 to 100 characters");
      }
      this.transactionalIdPrefix = prefix;
      return this;
    }

    /**
     * How long one broker operation of an open may take: checking the topic, reading a
     * partition to its end (which waits for open transactions of other coordinators of the same
     * partition), creating the log id. Default 60 s. Appends are bounded by the client
     * properties ({@code max.block.ms}, {@code delivery.timeout.ms}).
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Opens the log: checks the topic (creating it if {@link #createTopic} says so) and reads or
     * creates the log id. The topic is refused, with a message naming every setting to change,
     * if {@code cleanup.policy} is not exactly {@code compact}, {@code
     * unclean.leader.election.enable} is true, {@code min.insync.replicas} is below {@code min(2,
     * replication factor)} or above it, or {@code max.message.bytes} is below a state chunk
     * (about 513 KiB).
     *
     * @throws IllegalArgumentException if a client property is refused (the message says why)
     * @throws FatalTwoPhaseException if the topic is missing or refused, or its partition count
     *     is not the one the log was created with
     * @throws StateLogCorruptedException if the log-id record is damaged, or missing from a topic
     *     that holds coordinator records
     * @throws RetriableTwoPhaseException if the broker did not answer in time; nothing is left
     *     open
     */
    public KafkaStateLog build() {
      ClientSettings settings = new ClientSettings(clientProperties);
      String owner = ownerName != null ? ownerName : LogSetup.defaultOwnerName();
      Admin admin = LogSetup.admin(settings, topic);
      try {
        LogContext ctx = LogSetup.open(settings, admin, topic, owner, takeOver,
            transactionalIdPrefix, createPartitions, createReplicationFactor, timeout);
        return new KafkaStateLog(ctx, admin);
      } catch (RuntimeException | Error e) {
        LogSetup.closeQuietly(admin, e);
        throw e;
      }
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Stored in the record {@code log-id} of partition 0, created by the first open of an empty
   * topic (race-safely: an exclusive transactional id), never changed.
   */
  @Override
  public String logId() {
    return ctx.logId();
  }

  /** True: any process with this topic claims coordinators from any other, fenced by Kafka. */
  @Override
  public boolean isShared() {
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Claims through the coordinator's transactional producer, as the class comment describes;
   * the view holds that producer until it is closed.
   *
   * @throws IllegalArgumentException if the id is empty, longer than 255 UTF-8 bytes or not
   *     valid Unicode text
   * @throws CoordinatorHeldException if the id is open on this log, or another owner holds it
   *     and the log does not take over; the message names the holder and its epoch
   * @throws FencedException if the log is closed, or another process claimed the coordinator at
   *     the same moment
   * @throws StateLogCorruptedException if what the topic holds for the coordinator is damaged
   * @throws RetriableTwoPhaseException if the broker could not be read or written in time
   */
  @Override
  public CoordinatorLog open(String coordinatorId) {
    StateLog.checkCoordinatorId(coordinatorId);
    if (closed.get()) {
      throw new FencedException("state log " + ctx.describe() + " is closed: build a new "
          + "KafkaStateLog to open coordinator '" + coordinatorId + "'");
    }
    if (views.putIfAbsent(coordinatorId, CLAIMING) != null) {
      throw new CoordinatorHeldException(coordinatorId, "this log object", 0, "coordinator '"
          + coordinatorId + "' is already open on state log " + ctx.describe() + " in this "
          + "process: close its CoordinatorLog first; two coordinators must never share an id");
    }
    boolean opened = false;
    try {
      CoordinatorView view = Claim.claim(ctx, coordinatorId,
          v -> views.remove(v.coordinatorId(), v));
      views.put(coordinatorId, view);
      opened = true;
      if (closed.get()) {
        view.close();
        throw new FencedException("state log " + ctx.describe() + " was closed while coordinator '"
            + coordinatorId + "' was being claimed; it was released again");
      }
      return view;
    } finally {
      if (!opened) {
        views.remove(coordinatorId, CLAIMING);
      }
    }
  }

  /**
   * Releases every coordinator still open on this log (a released owner record each), closes
   * their producers and the admin client. Coordinators still open fail their next append with
   * {@link FencedException}. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<Throwable> failures = new ArrayList<>();
    for (Object v : List.copyOf(views.values())) {
      if (v instanceof CoordinatorView view) {
        try {
          view.close();
        } catch (RuntimeException | Error e) {
          failures.add(e);
        }
      }
    }
    LogSetup.closeQuietly(admin, null);
    if (!failures.isEmpty()) {
      Throwable first = failures.get(0);
      for (Throwable t : failures.subList(1, failures.size())) {
        first.addSuppressed(t);
      }
      if (first instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) first;
    }
  }

  /** The topic the log is on. */
  public String topic() {
    return ctx.topic();
  }

  @Override
  public String toString() {
    return "KafkaStateLog{" + ctx.describe() + (closed.get() ? ", closed" : "") + "}";
  }
}
