package dev.twophase.flink;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Fails its task a given number of times, each time after a random number (1 to 3) of checkpoints
 * completed in the attempt, at the next record. While failures remain it lets a record through
 * per millisecond, so that the job cannot finish before they happened; then it passes records at
 * full speed. The count is kept in this JVM (the MiniCluster's), by test key.
 */
final class FailingMap extends RichMapFunction<String, String> implements CheckpointListener {

  private static final long serialVersionUID = 1L;
  private static final Map<String, AtomicInteger> LEFT = new ConcurrentHashMap<>();

  private final String key;
  private transient AtomicInteger completed;
  private transient int failAfter;

  FailingMap(String key) {
    this.key = key;
  }

  /** Plans {@code failures} failures for the jobs that use {@code key}. */
  static void plan(String key, int failures) {
    LEFT.put(key, new AtomicInteger(failures));
  }

  /** The failures not yet done. */
  static int left(String key) {
    return LEFT.get(key).get();
  }

  @Override
  public void open(OpenContext openContext) {
    completed = new AtomicInteger();
    failAfter = 1 + ThreadLocalRandom.current().nextInt(3);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    completed.incrementAndGet();
  }

  @Override
  public String map(String value) throws Exception {
    AtomicInteger left = LEFT.get(key);
    if (left.get() > 0) {
      Thread.sleep(1);
      if (completed.get() >= failAfter && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new ExpectedFailure("planned failure after " + completed + " checkpoints of this attempt");
      }
    }
    return value;
  }

  /** A failure the test planned. */
  static final class ExpectedFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ExpectedFailure(String message) {
      super(message);
    }
  }
}
