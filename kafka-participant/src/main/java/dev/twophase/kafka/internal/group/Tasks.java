package dev.twophase.kafka.internal.group;

import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.group.TaskFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks a group runner's consumer is assigned, opened and closed with the consumer group's
 * rebalances: an assigned partition's task claims its coordinator and recovers; a revoked one
 * decides what it processed and closes before the partition goes (with cooperative rebalancing
 * only the partitions that move are revoked, and the other tasks go on); a lost one closes
 * without deciding anything.
 *
 * <p>Threads: the runner's polling thread calls everything here (the consumer calls the listener
 * inside {@code poll}); the tasks process, checkpoint and close on their {@link TaskThreads},
 * while the polling thread waits for them.
 */
@Internal
public final class Tasks<K, V> implements ConsumerRebalanceListener {

  private static final Logger LOG = LoggerFactory.getLogger("dev.twophase.kafka.group.GroupRunner");

  private final String group;
  private final Consumer<K, V> consumer;
  private final StateLog log;
  private final CoordinatorConfig config;
  private final CoordinatorListener listener;
  private final TaskFactory<K, V> factory;
  private final Duration handOverTimeout;
  private final RebalanceGate gate;
  private final TaskThreads threads;
  private final Map<TopicPartition, RunningTask<K, V>> running = new LinkedHashMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();
  /** The consumer's group metadata as of its last poll, for the tasks' KIP-447 offsets. */
  private volatile ConsumerGroupMetadata groupMetadata;
  /** The ids of the running tasks, for other threads. */
  private volatile Set<String> ids = Set.of();
  /** The failure of a task opened inside a rebalance, which the consumer wraps; rethrown as it is. */
  private TwoPhaseException openFailure;

  /** @param listener every task coordinator's listener, or null */
  public Tasks(String group, Consumer<K, V> consumer, StateLog log, CoordinatorConfig config,
      CoordinatorListener listener, TaskFactory<K, V> factory, Duration handOverTimeout, RebalanceGate gate,
      TaskThreads threads) {
    this.group = group;
    this.consumer = consumer;
    this.log = log;
    this.config = config;
    this.listener = listener;
    this.factory = factory;
    this.handOverTimeout = handOverTimeout;
    this.gate = gate;
    this.threads = threads;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    groupMetadata = consumer.groupMetadata();
    for (TopicPartition p : partitions) {
      if (running.containsKey(p)) {
        continue;
      }
      int thread = threads.bind();
      try {
        running.put(p, RunningTask.open(group, p, consumer, () -> groupMetadata, thread, log, config, listener,
            factory));
      } catch (TwoPhaseException e) {
        threads.unbind(thread);
        openFailure = e;
        throw e;
      } finally {
        publishIds();
      }
    }
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    // A revocation of a cooperative rebalance comes once the new generation is in: the last
    // checkpoints' input offsets must go under it (under the last poll's, the broker refuses them
    // with ILLEGAL_GENERATION and the tasks go without their last decision)
    groupMetadata = consumer.groupMetadata();
    for (TopicPartition p : partitions) {
      RunningTask<K, V> task = remove(p);
      if (task != null) {
        onItsThread(task, () -> task.closeCleanly(handOverTimeout));
      }
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    for (TopicPartition p : partitions) {
      RunningTask<K, V> task = remove(p);
      if (task != null) {
        LOG.warn("task {} was lost (this process dropped out of group '{}'): closed without a last checkpoint; "
            + "its next owner recovers it", task.taskId(), group);
        onItsThread(task, task::closeAbandoned);
      }
    }
  }

  /** Runs a task's last step on its thread; a failure is logged (the task is gone either way). */
  private void onItsThread(RunningTask<K, V> task, Runnable step) {
    try {
      threads.run(task.thread(), () -> {
        step.run();
        return null;
      });
    } catch (Exception e) {
      LOG.warn("task {}: closing it failed", task.taskId(), e);
    } finally {
      threads.unbind(task.thread());
    }
  }

  private RunningTask<K, V> remove(TopicPartition p) {
    RunningTask<K, V> task = running.remove(p);
    paused.remove(p);
    publishIds();
    return task;
  }

  private void publishIds() {
    Set<String> now = new TreeSet<>();
    running.values().forEach(t -> now.add(t.taskId()));
    ids = Set.copyOf(now);
  }

  /** The ids of the running tasks; any thread. */
  public Set<String> ids() {
    return ids;
  }

  /**
   * The failure a task's opening threw inside the consumer's rebalance, or null: the consumer
   * throws it from {@code poll} wrapped in its own exception.
   */
  public TwoPhaseException takeOpenFailure() {
    TwoPhaseException e = openFailure;
    openFailure = null;
    return e;
  }

  /**
   * One poll's work: each task processes its records of {@code records}, in order, and takes a
   * checkpoint if one is due, all tasks at once on their threads; then the consumer seeks where a
   * failed checkpoint rewound a task. No checkpoint while a rebalance is under way ({@link
   * RebalanceGate}); a task with as many checkpoints awaiting their commits as allowed has its
   * partition paused until it has room, so that polling never blocks.
   *
   * @throws Exception the first task's failure (a record processor's, or a coordinator's that
   *     cannot go on), after every task's share ended
   */
  public void run(ConsumerRecords<K, V> records) throws Exception {
    groupMetadata = consumer.groupMetadata();
    for (TopicPartition p : records.partitions()) {
      if (!running.containsKey(p)) {
        throw new FatalTwoPhaseException("the consumer returned records of " + p + ", which has no task in "
            + "group '" + group + "' (a bug: every assigned partition has one)");
      }
    }
    boolean checkpoints = !gate.rebalancing();
    List<List<Callable<Void>>> shares = new ArrayList<>(Collections.nCopies(threads.count(), null));
    for (RunningTask<K, V> task : running.values()) {
      boolean checkpoint = checkpoints && mayCheckpoint(task);
      List<ConsumerRecord<K, V>> batch = records.records(task.partition());
      if (batch.isEmpty() && !checkpoint) {
        continue;
      }
      List<Callable<Void>> share = shares.get(task.thread());
      if (share == null) {
        share = new ArrayList<>();
        shares.set(task.thread(), share);
      }
      share.add(() -> {
        for (ConsumerRecord<K, V> record : batch) {
          task.process(record);
        }
        if (checkpoint) {
          task.maybeCheckpoint();
        }
        return null;
      });
    }
    List<Callable<Void>> work = new ArrayList<>(shares.size());
    for (List<Callable<Void>> share : shares) {
      work.add(share == null ? null : () -> {
        for (Callable<Void> step : share) {
          step.call();
        }
        return null;
      });
    }
    try {
      threads.runAll(work);
    } finally {
      for (RunningTask<K, V> task : running.values()) {
        task.seekIfRewound();
      }
    }
  }

  /** Whether the task has room for a checkpoint; pauses its partition while it has none. */
  private boolean mayCheckpoint(RunningTask<K, V> task) {
    TopicPartition p = task.partition();
    if (task.mustWaitForCommits()) {
      if (paused.add(p)) {
        consumer.pause(List.of(p));
      }
      return false;
    }
    if (paused.remove(p)) {
      consumer.resume(List.of(p));
    }
    return true;
  }

  /** Hands every task over, as if revoked (a clean stop). */
  public void closeAllCleanly() {
    onPartitionsRevoked(List.copyOf(running.keySet()));
  }

  /** Closes every task without a last checkpoint (a fenced process, or a failure). */
  public void closeAllAbandoned() {
    for (TopicPartition p : List.copyOf(running.keySet())) {
      RunningTask<K, V> task = remove(p);
      onItsThread(task, task::closeAbandoned);
    }
  }
}
