package dev.twophase.flink;

import dev.twophase.FaultInjector;
import dev.twophase.crash.ChildJvm;
import dev.twophase.crash.ChildProgram;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The program {@link CrashPointsIT} runs in each child JVM: a bounded job, parallelism 1, on the
 * child's own MiniCluster (a local environment), that writes the numbers {@code 0 .. N-1} through
 * one {@link TwoPhaseSink} into files, an H2 table and a Kafka topic, with a checkpoint every
 * {@value #CHECKPOINT_MILLIS} ms retained in a directory of the test's; optionally restored from a
 * retained checkpoint. The sink's fault injector halts the JVM at the point that the system
 * property {@value ChildJvm#CRASH_AT} names ({@code POINT:HIT}, one of {@link FlinkPoints#all()}),
 * and prints {@value #REACHED}{@code <point>} on stdout every time a writer or committer reaches
 * a point, so that the test can count them. The topic's name is also the Kafka participant's
 * transactional id prefix.
 *
 * <p>Arguments: {@code filesDir h2Url kafkaBootstrap topic checkpointsDir records restorePath}
 * ({@code -} for a start without state). Prints {@code DONE} and exits 0 when the job finished;
 * exits 86 at the crash; prints {@code FAILED} and exits 1 if the job failed (it has no restarts:
 * the next child restores, as an operator would).
 */
public final class CrashPointsJob {

  /** Printed, followed by the point's name, each time the sink reaches a point. */
  static final String REACHED = "crash-points: reached ";
  static final long CHECKPOINT_MILLIS = 200;
  static final String SINK_ID = "crash";
  /** Pauses a millisecond after every this many records, to spread the input over checkpoints. */
  static final int THROTTLE_EVERY = 1;

  private CrashPointsJob() {}

  public static void main(String[] args) {
    ChildProgram.main(() -> run(args));
  }

  private static void run(String[] args) throws Exception {
    if (args.length != 7) {
      throw new IllegalArgumentException(
          "usage: CrashPointsJob filesDir h2Url kafkaBootstrap topic checkpointsDir records restorePath|-");
    }
    String files = args[0];
    H2Table table = new H2Table(args[1]);
    KafkaTopic topic = new KafkaTopic(args[2], args[3]);
    Path checkpoints = Path.of(args[4]);
    long records = Long.parseLong(args[5]);
    String restore = args[6].equals("-") ? null : args[6];
    System.out.println("crash-points: crashAt=" + System.getProperty(ChildJvm.CRASH_AT) + " restore=" + restore);

    StreamExecutionEnvironment env = Jobs.env(1, CHECKPOINT_MILLIS, 0, restore, Jobs.retainedCheckpoints(checkpoints));
    Jobs.numbers(env, records)
        .map(new Throttle(THROTTLE_EVERY)).uid("throttle")
        .sinkTo(TwoPhaseSink.<String>builder(SINK_ID)
            .participant("files", Participants.files(files))
            .participant("db", table.participant())
            .participant("kafka", topic.participant(topic.name())) // a prefix per scenario
            .faultInjector(CrashPointsJob::injector)
            .build()).uid("sink");
    env.execute("crash-points");
  }

  /** The injector of each writer and committer (made on the task manager, this JVM). */
  private static FaultInjector injector() {
    FaultInjector crash = CrashInjector.parse(System.getProperty(ChildJvm.CRASH_AT), FlinkPoints.all());
    return point -> {
      System.out.println(REACHED + point);
      System.out.flush();
      crash.reached(point);
    };
  }
}
