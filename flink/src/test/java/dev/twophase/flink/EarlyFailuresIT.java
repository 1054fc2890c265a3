package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactly once when attempts fail before their first checkpoint completes, and while live commits
 * run. A keyed exchange puts every task into one failover region, so that one subtask's failure
 * cancels the others; a failure at a commit waits until another subtask's committer is inside the
 * file participant's commit (held open by a hook), after the Kafka and database commits of the
 * same committable, so that the cancellation may interrupt it (how often it does depends on
 * Flink's cancellation timing: the test reports the count). The
 * plan of each seed ({@link EarlyFailingMap}) starts with a failure at a commit followed by an
 * early one: the attempt after that restores the checkpoint the early attempt restored, whose
 * committables the early attempt's writers must not have touched. Independent readers then find
 * every record exactly once in the files, the H2 table and the Kafka topic, and nothing left in
 * progress, prepared or open.
 */
class EarlyFailuresIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {42, 7, 2026, 99})
  void everyRecordOnceWhenAttemptsFailBeforeTheirFirstCheckpoint(long seed) throws Exception {
    long n = 20_000;
    int failures = 6;
    String key = "early-" + seed;
    List<EarlyFailingMap.Kind> plan = EarlyFailingMap.plan(key, seed, failures);
    Path out = tmp.resolve("files");
    H2Table table = new H2Table(tmp);
    KafkaTopic topic = new KafkaTopic("early-" + seed, 3);
    StreamExecutionEnvironment env = Jobs.env(3, 150, failures + 2, null);
    Jobs.numbers(env, n)
        .map(new EarlyFailingMap.Throttle(key)).uid("throttle")
        .keyBy(v -> v).map(new EarlyFailingMap(key)).uid("failing")
        .sinkTo(TwoPhaseSink.<String>builder("early" + seed)
            .participant("kafka", topic.participant("early-it-" + seed))
            .participant("db", table.participant())
            .participant("files", HookedFiles.factory(out.toString(), EarlyFailingMap.slowCommits(key)))
            .build()).uid("sink");
    env.execute("early failures, seed " + seed);

    assertEquals(0, EarlyFailingMap.left(key), "every planned failure happened: " + plan);
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
    assertEquals(0, HookedFiles.notClosed(out.toString()), "every writer and committer closed its participants");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(table.rowCounts(), n), "rows");
    assertEquals(List.of(), table.inDoubt(), "no transaction left prepared");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(topic.valueCounts(), n), "Kafka records (read_committed)");
    // Whether the cancellation reaches a held-open commit depends on Flink's timing, so it is
    // reported, not asserted (the Kafka commits before it are interrupted too, some runs).
    System.out.println("EarlyFailuresIT seed " + seed + ": " + EarlyFailingMap.interruptedCommits(key)
        + " held-open commit(s) interrupted by the cancellation");
  }
}
