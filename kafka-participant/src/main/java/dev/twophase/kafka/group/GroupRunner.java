package dev.twophase.kafka.group;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FencedException;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.PublicEvolving;
import dev.twophase.kafka.internal.group.RebalanceGate;
import dev.twophase.kafka.internal.group.TaskThreads;
import dev.twophase.kafka.internal.group.Tasks;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consume-transform-write job as one member of a Kafka consumer group, so that the job
 * scales out over processes and moves off a dead one, with exactly-once output to Kafka,
 * databases and files alike.
 *
 * <h2>Design</h2>
 * The unit of work is a <em>task</em>: one input partition with a coordinator of its own, named
 * after the group and the partition ({@code <group.id>/<topic>-<partition>}), on a shared state
 * log ({@link StateLog#isShared()}: a {@code JdbcStateLog} or a {@code KafkaStateLog}, built to
 * take coordinators over). The consumer group decides which process runs which task; the state
 * log decides, per task, which process may decide its checkpoints. The two agree except for a
 * moment in a rebalance or a failure, and the log is what makes that moment safe:
 * <ul>
 *   <li><b>Assigned.</b> The runner asks the {@link TaskFactory} for the task's participants and
 *       processor, and builds its coordinator: the claim fences the previous owner wherever it
 *       still runs, recovery commits what it decided and aborts what it did not, and the task's
 *       input position is restored from the last decided checkpoint ({@link
 *       dev.twophase.ApplicationState}); the consumer seeks there. Nothing depends on the group's
 *       committed offsets.
 *   <li><b>Revoked.</b> Before its partition goes, a task takes a last checkpoint (deciding what
 *       it processed), waits for its commit up to the hand-over timeout, and closes, releasing its
 *       coordinator. Rebalancing is cooperative (KIP-429), so only the tasks that move stop; the
 *       others go on.
 *   <li><b>Lost</b> (this process dropped out of the group: a long pause, a partition of the
 *       network). The task closes without deciding anything.
 *   <li><b>Zombies.</b> A process that lost its tasks without noticing can neither decide (the
 *       log fences it at its next append) nor commit Kafka output or input offsets (a Kafka
 *       participant given {@link TaskSetup#consumedOffsets()} commits them with the consumer's
 *       group metadata, KIP-447, which the broker refuses from a stale generation). Fenced, the
 *       runner closes its tasks without deciding anything and joins the group again.
 * </ul>
 *
 * <h2>Threads and polling</h2>
 * The thread that calls {@link #run()} polls, rebalances and seeks, as a Kafka consumer requires.
 * The tasks process their records and take their checkpoints on task threads ({@link
 * Builder#taskThreads}), each task on one of them for its life, so that the tasks of one process
 * checkpoint at the same time; the polling thread hands each task its records of a poll and waits
 * for all of them before it polls again. Commits run on each coordinator's committer thread, so a
 * slow commit never holds up polling: a task whose coordinator has {@link
 * CoordinatorConfig#maxPendingCheckpoints()} checkpoints awaiting their commits has its partition
 * paused until they complete, and the runner polls on, within {@code max.poll.interval.ms}.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * GroupRunner<String, String> runner = GroupRunner.builder(consumerConfig, keys, values)
 *     .topics("orders")
 *     .stateLog(sharedLog)
 *     .tasks(setup -> {
 *       Output<String> out = setup.output("files", FileParticipant.builder(dir, lines).build());
 *       return record -> out.write(record.value());
 *     })
 *     .build();
 * Runtime.getRuntime().addShutdownHook(new Thread(runner::close));
 * runner.run(); // until close()
 * }</pre>
 *
 * @param <K> the input key type
 * @param <V> the input value type
 */
@PublicEvolving
public final class GroupRunner<K, V> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GroupRunner.class);

  private final Map<String, Object> consumerConfig;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final List<String> topics;
  private final String group;
  private final StateLog log;
  private final TaskFactory<K, V> factory;
  private final CoordinatorConfig coordinatorConfig;
  /** Every task coordinator's listener, or null. */
  private final CoordinatorListener listener;
  private final Duration pollTimeout;
  private final Duration handOverTimeout;
  private final Duration closeTimeout;
  private final boolean leaveGroupOnClose;
  private final int taskThreads;

  private final RebalanceGate gate = new RebalanceGate();
  private final AtomicBoolean started = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closing;
  private volatile Consumer<K, V> consumer;
  private volatile Tasks<K, V> tasks;

  private GroupRunner(Builder<K, V> b) {
    this.consumerConfig = new HashMap<>(b.consumerConfig);
    this.consumerConfig.put(RebalanceGate.CONFIG_KEY, gate);
    this.keys = b.keys;
    this.values = b.values;
    this.topics = b.topics;
    this.group = (String) b.consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG);
    this.log = b.log;
    this.factory = b.factory;
    this.coordinatorConfig = b.coordinatorConfig;
    this.listener = b.listener;
    this.pollTimeout = b.pollTimeout;
    this.handOverTimeout = b.handOverTimeout;
    this.closeTimeout = b.closeTimeout;
    this.leaveGroupOnClose = b.leaveGroupOnClose;
    this.taskThreads = b.taskThreads;
  }

  /**
   * Starts building a runner.
   *
   * @param consumerConfig the input consumer's settings: {@code bootstrap.servers} and {@code
   *     group.id} at least. The runner sets {@code enable.auto.commit=false} and {@code
   *     isolation.level=read_committed} (and refuses the opposite), and joins with the classic
   *     group protocol and its own cooperative sticky assignor (and refuses another protocol or
   *     assignor). Unless set, {@code heartbeat.interval.ms} is the checkpoint interval, within
   *     100 ms and 3 s and at most a third of {@code session.timeout.ms}: while a rebalance is
   *     under way every task of a member holds its checkpoints back, from the moment the member
   *     rejoins until the last member has (which each learns from its next heartbeat), so the
   *     heartbeat interval bounds the stall that a task moving elsewhere causes the tasks that
   *     stay. {@code group.instance.id} (static membership) is supported.
   */
  public static <K, V> Builder<K, V> builder(Map<String, ?> consumerConfig, Deserializer<K> keys,
      Deserializer<V> values) {
    return new Builder<>(consumerConfig, keys, values);
  }

  /**
   * Joins the group and runs its tasks on the calling thread until {@link #close()}; then hands
   * every task over (a last checkpoint each, committed) and leaves the group. Call it once.
   *
   * @throws TwoPhaseException if a task could not be opened (its factory failed, its coordinator
   *     is held elsewhere, its recovery failed) or failed for good; every task was closed without
   *     a last checkpoint, the consumer left the group, and the next owner of each task replays
   *     from its last decided checkpoint
   * @throws IllegalStateException if called a second time
   */
  public void run() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("GroupRunner.run() was called already; build a new runner to run again");
    }
    KafkaConsumer<K, V> c;
    try {
      c = new KafkaConsumer<>(consumerConfig, keys, values);
    } catch (RuntimeException | Error e) {
      stopped.countDown();
      throw e;
    }
    consumer = c;
    TaskThreads threads = new TaskThreads(group, taskThreads);
    Tasks<K, V> t = new Tasks<>(group, c, log, coordinatorConfig, listener, factory, handOverTimeout, gate,
        threads);
    tasks = t;
    boolean clean = false;
    try {
      c.subscribe(topics, t);
      while (!closing) {
        pollOnce(c, t);
      }
      t.closeAllCleanly();
      clean = true;
    } catch (RuntimeException | Error e) {
      LOG.error("group runner of group '{}' stops: {}", group, e.toString());
      t.closeAllAbandoned();
      throw e;
    } finally {
      try {
        c.close(CloseOptions.groupMembershipOperation(leaveGroupOnClose
            ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
            : CloseOptions.GroupMembershipOperation.DEFAULT).withTimeout(closeTimeout));
      } catch (RuntimeException e) {
        LOG.warn("group runner of group '{}': closing the consumer failed", group, e);
      } finally {
        threads.close();
        stopped.countDown();
      }
      LOG.info("group runner of group '{}' stopped{}", group, clean ? "" : " after a failure");
    }
  }

  private void pollOnce(KafkaConsumer<K, V> c, Tasks<K, V> t) {
    try {
      ConsumerRecords<K, V> records = c.poll(pollTimeout);
      t.run(records);
    } catch (WakeupException e) {
      if (!closing) {
        throw e;
      }
    } catch (FencedException e) {
      TwoPhaseException openFailure = t.takeOpenFailure();
      if (openFailure != null) {
        throw openFailure; // a task could not be claimed: the message names its holder
      }
      LOG.warn("group runner of group '{}' was fenced (another process owns one of its tasks now): closing every "
          + "task without deciding anything, and joining the group again", group, e);
      t.closeAllAbandoned();
      c.unsubscribe();
      c.subscribe(topics, t);
    } catch (KafkaException e) {
      TwoPhaseException openFailure = t.takeOpenFailure();
      throw openFailure != null ? openFailure : e;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new TwoPhaseException("group runner of group '" + group + "': a task's RecordProcessor failed: " + e
          + "; its records of the current checkpoint are read again by the task's next owner", e);
    }
  }

  /** The ids of the tasks this runner runs now ({@code <topic>-<partition>}); any thread. */
  public Set<String> taskIds() {
    Tasks<K, V> t = tasks;
    return t == null ? Set.of() : t.ids();
  }

  /**
   * Stops {@link #run()}: every task is handed over (a last checkpoint, committed) and the
   * consumer leaves the group. Any thread; waits up to the close timeout for {@code run()} to end.
   * Idempotent.
   */
  @Override
  public void close() {
    closing = true;
    Consumer<K, V> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    if (started.get()) {
      try {
        if (!stopped.await(closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
          LOG.warn("group runner of group '{}' did not stop within {}", group, closeTimeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Builds a {@link GroupRunner}. */
  @PublicEvolving
  public static final class Builder<K, V> {
    private final Map<String, Object> consumerConfig;
    private final Deserializer<K> keys;
    private final Deserializer<V> values;
    private List<String> topics;
    private StateLog log;
    private TaskFactory<K, V> factory;
    private CoordinatorConfig coordinatorConfig = CoordinatorConfig.custom()
        .checkpointInterval(Duration.ofSeconds(1))
        .maxPendingCheckpoints(4, CoordinatorConfig.WhenPendingFull.BLOCK)
        .build();
    private Duration pollTimeout = Duration.ofMillis(100);
    private Duration handOverTimeout = Duration.ofSeconds(30);
    private Duration closeTimeout = Duration.ofSeconds(60);
    private boolean leaveGroupOnClose = true;
    private int taskThreads = 4;
    private CoordinatorListener listener;

    private Builder(Map<String, ?> consumerConfig, Deserializer<K> keys, Deserializer<V> values) {
      this.consumerConfig = new HashMap<>(Objects.requireNonNull(consumerConfig, "consumerConfig"));
      this.keys = Objects.requireNonNull(keys, "keys");
      this.values = Objects.requireNonNull(values, "values");
    }

    /** The input topics; every partition of each is one task. */
    public Builder<K, V> topics(String... topics) {
      return topics(List.of(topics));
    }

    /** The input topics; every partition of each is one task. */
    public Builder<K, V> topics(Collection<String> topics) {
      if (topics.isEmpty()) {
        throw new IllegalArgumentException("give at least one input topic");
      }
      this.topics = List.copyOf(topics);
      return this;
    }

    /**
     * The state log of every task's coordinator: a shared one ({@link StateLog#isShared()}), which
     * every process of the group opens, built to take coordinators over (a {@code JdbcStateLog}
     * or {@code KafkaStateLog} with {@code takeOver(true)}): the group decides who runs a task,
     * and a process that died without releasing its tasks must not block their next owner.
     */
    public Builder<K, V> stateLog(StateLog log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /** Makes each task's participants and processor. */
    public Builder<K, V> tasks(TaskFactory<K, V> factory) {
      this.factory = Objects.requireNonNull(factory, "factory");
      return this;
    }

    /**
     * The settings of every task's coordinator. Default: a checkpoint every second, at most 4
     * checkpoints awaiting their commits (a task's partition is paused while it has 4).
     */
    public Builder<K, V> coordinatorConfig(CoordinatorConfig config) {
      this.coordinatorConfig = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * Tells {@code listener} of every task's checkpoints, commits and recovery, as {@link
     * Coordinator.Builder#listener} does for one coordinator; the coordinator id in each call names
     * the task ({@code <group.id>/<topic>-<partition>}). Called from the task threads and the
     * committers: keep it fast. Default: none.
     */
    public Builder<K, V> listener(CoordinatorListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** How long one poll waits for records; also the pace of time-based checkpoints. Default 100 ms. */
    public Builder<K, V> pollTimeout(Duration timeout) {
      this.pollTimeout = positive(timeout, "pollTimeout");
      return this;
    }

    /**
     * How long a revoked task waits for its last checkpoint's commit before it closes anyway (its
     * next owner's recovery then finishes the commit). Below {@code max.poll.interval.ms}.
     * Default 30 s.
     */
    public Builder<K, V> handOverTimeout(Duration timeout) {
      this.handOverTimeout = positive(timeout, "handOverTimeout");
      return this;
    }

    /** How long {@link GroupRunner#close()} waits for the tasks to be handed over. Default 60 s. */
    public Builder<K, V> closeTimeout(Duration timeout) {
      this.closeTimeout = positive(timeout, "closeTimeout");
      return this;
    }

    /**
     * Whether the consumer leaves the group when the runner stops. Default true; false keeps a
     * static member ({@code group.instance.id}) in the group until its session times out, so that
     * a restart within that time gets its tasks back without a rebalance.
     */
    public Builder<K, V> leaveGroupOnClose(boolean leave) {
      this.leaveGroupOnClose = leave;
      return this;
    }

    /**
     * How many threads the tasks of this process process and checkpoint on; default 4. Each task
     * runs on one of them for its life, the least loaded when it starts, and the tasks of
     * different threads checkpoint at the same time: a checkpoint mostly waits for its resources
     * (a flush, input offsets, the state log's append), so more threads than cores pay off. The
     * polling thread waits for every task's share of a poll before it polls again.
     */
    public Builder<K, V> taskThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("taskThreads must be at least 1, was " + threads);
      }
      this.taskThreads = threads;
      return this;
    }

    /**
     * @throws IllegalArgumentException if a setting is missing or contradicts exactly-once input
     *     (the message says which and what to set)
     */
    public GroupRunner<K, V> build() {
      if (topics == null) {
        throw new IllegalArgumentException("no input topics: call topics(...)");
      }
      if (log == null) {
        throw new IllegalArgumentException("no state log: call stateLog(...) with a shared log (JdbcStateLog, "
            + "KafkaStateLog) that every process of the group opens");
      }
      if (!log.isShared()) {
        throw new IllegalArgumentException("the state log " + log + " is owned as a whole by one process "
            + "(isShared() is false), so the group's processes cannot take tasks over from each other: give every "
            + "process the same shared log (JdbcStateLog, KafkaStateLog)");
      }
      if (factory == null) {
        throw new IllegalArgumentException("no task factory: call tasks(...)");
      }
      Object group = consumerConfig.get(ConsumerConfig.GROUP_ID_CONFIG);
      if (!(group instanceof String g) || g.isBlank()) {
        throw new IllegalArgumentException("the consumer config has no group.id: the group's processes share "
            + "the tasks of one group id");
      }
      if (consumerConfig.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
        throw new IllegalArgumentException("the consumer config has no bootstrap.servers");
      }
      require(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false", "the runner keeps each task's input position in "
          + "its checkpoints; committed offsets would run ahead of the output");
      require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", "records of aborted or open transactions "
          + "in the input would be processed");
      Object protocol = consumerConfig.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
      if (protocol != null && !"classic".equalsIgnoreCase(String.valueOf(protocol))) {
        throw new IllegalArgumentException("the consumer config sets " + ConsumerConfig.GROUP_PROTOCOL_CONFIG + "="
            + protocol + ": a group runner joins with the classic protocol and its cooperative sticky assignor, "
            + "which tells it when a rebalance is under way; remove the setting");
      }
      if (consumerConfig.containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
        throw new IllegalArgumentException("the consumer config sets " + ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG
            + ": a group runner assigns with its own cooperative sticky assignor (KIP-429), which holds checkpoints "
            + "back while a rebalance is under way; remove the setting");
      }
      consumerConfig.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RebalanceGate.Assignor.class.getName());
      consumerConfig.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, defaultHeartbeatMs());
      long maxPoll = Long.parseLong(String.valueOf(
          consumerConfig.getOrDefault(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "300000")));
      if (handOverTimeout.toMillis() >= maxPoll) {
        throw new IllegalArgumentException("handOverTimeout " + handOverTimeout + " must be below "
            + "max.poll.interval.ms (" + maxPoll + " ms): a rebalance waits for it inside poll");
      }
      return new GroupRunner<>(this);
    }

    /** The checkpoint interval, within 100 ms and 3 s (Kafka's default) and at most a third of the session timeout. */
    private int defaultHeartbeatMs() {
      long interval = coordinatorConfig.checkpointInterval().map(Duration::toMillis).orElse(3_000L);
      long session = Long.parseLong(String.valueOf(
          consumerConfig.getOrDefault(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000")));
      return (int) Math.min(Math.max(100, Math.min(interval, 3_000)), Math.max(1, session / 3));
    }

    private void require(String key, String value, String why) {
      Object given = consumerConfig.get(key);
      if (given != null && !value.equalsIgnoreCase(String.valueOf(given))) {
        throw new IllegalArgumentException("the consumer config sets " + key + "=" + given + ", but a group runner "
            + "needs " + value + ": " + why + ". Remove the setting or set " + value);
      }
      consumerConfig.put(key, value);
    }

    private static Duration positive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }
  }
}
