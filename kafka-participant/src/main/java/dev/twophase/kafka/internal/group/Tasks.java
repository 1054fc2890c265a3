package dev.twophase.kafka.internal.group;

import dev.twophase.CoordinatorConfig;
import dev.twophase.FatalTwoPhaseException;
import dev.twophase.StateLog;
import dev.twophase.TwoPhaseException;
import dev.twophase.annotation.Internal;
import dev.twophase.kafka.group.TaskFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
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
 * <p>Threads: the runner's thread only (the consumer calls the listener inside {@code poll}).
 */
@Internal
public final class Tasks<K, V> implements ConsumerRebalanceListener {

  private static final Logger LOG = LoggerFactory.getLogger("dev.twophase.kafka.group.GroupRunner");

  private final String group;
  private final Consumer<K, V> consumer;
  private final StateLog log;
  private final CoordinatorConfig config;
  private final TaskFactory<K, V> factory;
  private final Duration handOverTimeout;
  private final RebalanceGate gate;
  private final Map<TopicPartition, RunningTask<K, V>> running = new LinkedHashMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();
  /** The ids of the running tasks, for other threads. */
  private volatile Set<String> ids = Set.of();
  /** The failure of a task opened inside a rebalance, which the consumer wraps; rethrown as it is. */
  private TwoPhaseException openFailure;

  public Tasks(String group, Consumer<K, V> consumer, StateLog log, CoordinatorConfig config,
      TaskFactory<K, V> factory, Duration handOverTimeout, RebalanceGate gate) {
    this.group = group;
    this.consumer = consumer;
    this.log = log;
    this.config = config;
    this.factory = factory;
    this.handOverTimeout = handOverTimeout;
    this.gate = gate;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    for (TopicPartition p : partitions) {
      if (running.containsKey(p)) {
        continue;
      }
      try {
        running.put(p, RunningTask.open(group, p, consumer, log, config, factory));
      } catch (TwoPhaseException e) {
        openFailure = e;
        throw e;
      } finally {
        publishIds();
      }
    }
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    for (TopicPartition p : partitions) {
      RunningTask<K, V> task = remove(p);
      if (task != null) {
        task.closeCleanly(handOverTimeout);
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
        task.closeAbandoned();
      }
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

  /** Hands each record to its partition's task, in order. */
  public void process(ConsumerRecords<K, V> records) throws Exception {
    for (TopicPartition p : records.partitions()) {
      RunningTask<K, V> task = running.get(p);
      if (task == null) {
        throw new FatalTwoPhaseException("the consumer returned records of " + p + ", which has no task in "
            + "group '" + group + "' (a bug: every assigned partition has one)");
      }
      List<ConsumerRecord<K, V>> batch = records.records(p);
      for (ConsumerRecord<K, V> record : batch) {
        task.process(record);
      }
    }
  }

  /**
   * Checkpoints every task that is due, and pauses the partitions of tasks that must wait for
   * their commits (resuming them once they need not), so that polling never blocks. Nothing while
   * a rebalance is under way ({@link RebalanceGate}).
   */
  public void checkpointDue() {
    if (gate.rebalancing()) {
      return;
    }
    for (RunningTask<K, V> task : running.values()) {
      TopicPartition p = task.partition();
      if (task.mustWaitForCommits()) {
        if (paused.add(p)) {
          consumer.pause(List.of(p));
        }
        continue;
      }
      if (paused.remove(p)) {
        consumer.resume(List.of(p));
      }
      task.maybeCheckpoint();
    }
  }

  /** Hands every task over, as if revoked (a clean stop). */
  public void closeAllCleanly() {
    onPartitionsRevoked(List.copyOf(running.keySet()));
  }

  /** Closes every task without a last checkpoint (a fenced process, or a failure). */
  public void closeAllAbandoned() {
    for (TopicPartition p : List.copyOf(running.keySet())) {
      RunningTask<K, V> task = remove(p);
      try {
        task.closeAbandoned();
      } catch (RuntimeException e) {
        LOG.warn("task {}: closing it failed", task.taskId(), e);
      }
    }
  }
}
