package dev.twophase.flink;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Fails its task by a seeded plan of failures of two kinds, the count kept in this JVM (the
 * MiniCluster's) by test key:
 * <ul>
 *   <li>{@link Kind#EARLY}: a few records into an attempt, before any checkpoint of the attempt
 *       completed, so that the next attempt restores the same checkpoint as this one did;
 *   <li>{@link Kind#AT_COMMIT}: once a checkpoint of the attempt completed, while another subtask's
 *       committer is inside a commit that {@link #heldCommits} holds open, so that the cancellation
 *       interrupts it ({@link #interruptedCommits} counts those).
 * </ul>
 * Any subtask takes the next failure of the plan when its condition holds. Upstream of the keyed
 * exchange, {@link Throttle} lets a record through per millisecond while failures remain, so that
 * the job cannot finish before they happened and no backlog delays the checkpoint barriers.
 */
final class EarlyFailingMap extends RichMapFunction<String, String> implements CheckpointListener {

  private static final long serialVersionUID = 1L;

  /** What a planned failure waits for. */
  enum Kind { EARLY, AT_COMMIT }

  private static final Map<String, List<Kind>> PLANS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> NEXT = new ConcurrentHashMap<>();
  private static final Map<String, Long> SEEDS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> COMMITTING = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> INTERRUPTED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> NOT_INTERRUPTED = new ConcurrentHashMap<>();

  private final String key;
  private transient volatile boolean checkpointCompleted;
  private transient long records;
  private transient int earlyAfter;

  EarlyFailingMap(String key) {
    this.key = key;
  }

  /**
   * Plans {@code failures} (at least 2) failures from {@code seed}: the first at a commit (so that a
   * checkpoint exists to restore), the second early (so that the attempt after it restores that
   * checkpoint again), each later one early with probability one half.
   */
  static List<Kind> plan(String key, long seed, int failures) {
    SplittableRandom random = new SplittableRandom(seed);
    Kind[] kinds = new Kind[failures];
    kinds[0] = Kind.AT_COMMIT;
    kinds[1] = Kind.EARLY;
    for (int i = 2; i < failures; i++) {
      kinds[i] = random.nextBoolean() ? Kind.EARLY : Kind.AT_COMMIT;
    }
    PLANS.put(key, List.of(kinds));
    SEEDS.put(key, seed);
    COMMITTING.put(key, new AtomicInteger());
    INTERRUPTED.put(key, new AtomicInteger());
    NOT_INTERRUPTED.put(key, new AtomicInteger());
    NEXT.put(key, new AtomicInteger());
    return PLANS.get(key);
  }

  /** The planned failures not yet done. */
  static int left(String key) {
    return PLANS.get(key).size() - NEXT.get(key).get();
  }

  /**
   * A hook for {@link HookedFiles} that, while the next planned failure is at a commit, holds one
   * live commit at a time (not a restored one's {@code recoverAndCommit}) open until the task's cancellation interrupts it (at most 30 s), so that the
   * failure happens inside it. The interrupt is then kept and the commit goes on, so that the
   * participants after this one commit on an interrupted thread, as a live Kafka commit does when
   * Flink cancels its task: the broker may have the commit request while the caller sees an
   * {@code InterruptException}.
   */
  static HookedFiles.Hook heldCommits(String key) {
    return (point, transaction, base) -> {
      List<Kind> plan = PLANS.get(key);
      int i = NEXT.get(key).get();
      if (!point.equals("commit") || HookedFiles.inRecoverAndCommit() || i >= plan.size()
          || plan.get(i) != Kind.AT_COMMIT || !COMMITTING.get(key).compareAndSet(0, 1)) {
        return;
      }
      try {
        Thread.sleep(30_000);
        NOT_INTERRUPTED.get(key).incrementAndGet();
      } catch (InterruptedException e) {
        INTERRUPTED.get(key).incrementAndGet();
        Thread.currentThread().interrupt();
      } finally {
        COMMITTING.get(key).set(0);
      }
    };
  }

  /** How many commits held open by {@link #heldCommits} the cancellation interrupted. */
  static int interruptedCommits(String key) {
    return INTERRUPTED.get(key).get();
  }

  /** How many commits held open by {@link #heldCommits} waited their 30 s without an interrupt. */
  static int uninterruptedCommits(String key) {
    return NOT_INTERRUPTED.get(key).get();
  }

  /** How many failures of the plan are at a commit. */
  static long atCommit(String key) {
    return PLANS.get(key).stream().filter(k -> k == Kind.AT_COMMIT).count();
  }

  @Override
  public void open(OpenContext openContext) {
    checkpointCompleted = false;
    records = 0;
    var task = getRuntimeContext().getTaskInfo();
    earlyAfter = 1 + new SplittableRandom(SEEDS.get(key) * 31 + task.getAttemptNumber() * 7919L
        + task.getIndexOfThisSubtask()).nextInt(40);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    checkpointCompleted = true;
  }

  @Override
  public String map(String value) throws Exception {
    List<Kind> plan = PLANS.get(key);
    AtomicInteger next = NEXT.get(key);
    int i = next.get();
    if (i < plan.size()) {
      records++;
      boolean due = switch (plan.get(i)) {
        case EARLY -> !checkpointCompleted && records >= earlyAfter;
        // each held commit is claimed by one failure (1 -> 2), so that every such failure has its own
        case AT_COMMIT -> checkpointCompleted && COMMITTING.get(key).get() == 1;
      };
      if (due && plan.get(i) == Kind.AT_COMMIT && !COMMITTING.get(key).compareAndSet(1, 2)) {
        due = false;
      }
      if (due && !next.compareAndSet(i, i + 1)) {
        due = false;
        if (plan.get(i) == Kind.AT_COMMIT) {
          COMMITTING.get(key).compareAndSet(2, 1);
        }
      }
      if (due) {
        throw new FailingMap.ExpectedFailure("planned failure " + (i + 1) + " of " + plan.size() + " ("
            + plan.get(i) + ") after " + records + " records of attempt "
            + getRuntimeContext().getTaskInfo().getAttemptNumber());
      }
    }
    return value;
  }

  /** One record per millisecond while failures of the plan remain, then full speed. */
  static final class Throttle implements MapFunction<String, String> {

    private static final long serialVersionUID = 1L;
    private final String key;

    Throttle(String key) {
      this.key = key;
    }

    @Override
    public String map(String value) throws InterruptedException {
      if (left(key) > 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }
}
