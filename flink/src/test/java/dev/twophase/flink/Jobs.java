package dev.twophase.flink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;

/** The test jobs' set-up: one MiniCluster per test class, environments with checkpointing. */
final class Jobs {

  private Jobs() {}

  /** A MiniCluster with one task manager of {@code slots} slots. */
  static MiniClusterExtension cluster(int slots) {
    return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
        .setNumberTaskManagers(1)
        .setNumberSlotsPerTaskManager(slots)
        .build());
  }

  /**
   * An environment with checkpoints every {@code checkpointMillis}, a fixed-delay restart strategy
   * of {@code restarts} attempts (none if 0), and, if {@code savepoint} is not null, restored from
   * it.
   */
  static StreamExecutionEnvironment env(int parallelism, long checkpointMillis, int restarts, String savepoint) {
    return env(parallelism, checkpointMillis, restarts, savepoint, new Configuration());
  }

  /** As {@link #env(int, long, int, String)}, with more settings in {@code conf}. */
  static StreamExecutionEnvironment env(int parallelism, long checkpointMillis, int restarts, String savepoint,
      Configuration conf) {
    if (restarts > 0) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(50));
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    if (savepoint != null) {
      conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    if (checkpointMillis > 0) {
      env.enableCheckpointing(checkpointMillis);
    }
    return env;
  }

  /** The numbers {@code 0 .. count-1} as strings, from a checkpointed (restartable, rescalable) source. */
  static DataStream<String> numbers(StreamExecutionEnvironment env, long count) {
    return env.fromSequence(0, count - 1).map(String::valueOf).name("numbers").uid("numbers");
  }

  /** Settings that keep a job's checkpoints under {@code directory} when it fails or is cancelled. */
  static Configuration retainedCheckpoints(Path directory) {
    return new Configuration()
        .set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, directory.toUri().toString())
        .set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
  }

  /** The newest checkpoint retained under {@code directory}, as a path to restore. */
  static String latestCheckpoint(Path directory) throws IOException {
    try (Stream<Path> s = Files.walk(directory)) {
      return s.filter(p -> p.getFileName().toString().equals("_metadata"))
          .map(Path::getParent)
          .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring("chk-".length()))))
          .orElseThrow(() -> new AssertionError("no retained checkpoint under " + directory))
          .toUri().toString();
    }
  }
}
