package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * cancels the others. A failure at a commit happens while another subtask's committer is inside
 * the file participant's live commit, held open by a hook until the cancellation interrupts it; the
 * hook keeps the interrupt and returns, so that the Kafka and database commits of the same
 * committable run on the interrupted thread (Kafka's {@code commitTransaction} has sent its request
 * when it sees the interrupt), and the attempt ends with that committable's outcome undecided in
 * the broker. The plan of each seed ({@link EarlyFailingMap}) starts with a failure at a commit
 * followed by an early one: the attempt after that restores the checkpoint the early attempt
 * restored, whose committables the early attempt's writers must not have touched. Every failure at
 * a commit must have interrupted one. Independent readers then find every record exactly once in
 * the files, the H2 table and the Kafka topic, and nothing left in progress, prepared or open.
 */
class EarlyFailuresIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {42, 7, 2026, 99, 5, 314, 1234, 8})
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
            .participant("files", HookedFiles.factory(out.toString(), EarlyFailingMap.heldCommits(key)))
            .participant("kafka", topic.participant("early-it-" + seed))
            .participant("db", table.participant())
            .build()).uid("sink");
    env.execute("early failures, seed " + seed);

    assertEquals(0, EarlyFailingMap.left(key), "every planned failure happened: " + plan);
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
    assertEquals(0, HookedFiles.notClosed(out.toString()), "every writer and committer closed its participants");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(table.rowCounts(), n), "rows");
    assertEquals(List.of(), table.inDoubt(), "no transaction left prepared");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(topic.valueCounts(), n), "Kafka records (read_committed)");
    // A dying attempt may hold (and so interrupt) one more commit, hence at least.
    assertEquals(0, EarlyFailingMap.uninterruptedCommits(key), "live commits held open 30 s without an interrupt");
    assertTrue(EarlyFailingMap.interruptedCommits(key) >= EarlyFailingMap.atCommit(key),
        "every failure at a commit interrupted a live commit held open: " + EarlyFailingMap.interruptedCommits(key)
            + " for " + plan);
  }
}
