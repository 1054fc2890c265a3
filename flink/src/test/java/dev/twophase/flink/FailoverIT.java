package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once under failover: an operator upstream of the sink fails its task at random after
 * some checkpoints, the restart strategy restores the failed region from its last checkpoint, and
 * independent readers of the committed files and of the database table find every record exactly
 * once in each, and nothing left in progress, prepared or open. The sink writes to the file
 * participant, the JDBC participant (an H2 file database) and the Kafka participant (the in-JVM
 * broker of its tests), which commit each checkpoint together.
 */
class FailoverIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @Test
  void everyRecordOnceThroughRandomFailures() throws Exception {
    long n = 60_000;
    int failures = 4;
    String key = "failover-files";
    FailingMap.plan(key, failures);
    Path out = tmp.resolve("files");
    H2Table table = new H2Table(tmp);
    KafkaTopic topic = new KafkaTopic("failover", 2);
    StreamExecutionEnvironment env = Jobs.env(2, 100, failures + 2, null);
    Jobs.numbers(env, n)
        .map(new FailingMap(key)).uid("failing")
        .sinkTo(TwoPhaseSink.<String>builder("failover")
            .participant("files", HookedFiles.counted(out.toString()))
            .participant("db", table.participant())
            .participant("kafka", topic.participant("failover-it"))
            .build()).uid("sink");
    env.execute("failover");

    assertEquals(0, FailingMap.left(key), "every planned failure happened");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(out), n));
    assertEquals(List.of(), CommittedFiles.inProgress(out));
    assertEquals(0, HookedFiles.notClosed(out.toString()), "every writer and committer closed its participants");
    assertFalse(HookedFiles.retired(out.toString()).isEmpty(), "the chained committer's reports retired handles");
    assertEquals(Set.of(), HookedFiles.retiredUncommitted(), "a handle is retired only after its commit");
    assertTrue(HookedFiles.earlierRetired(out.toString()) > 0, "restarted writers retired their earlier incarnations");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(table.rowCounts(), n), "rows");
    assertEquals(List.of(), table.inDoubt(), "no transaction left prepared");
    assertEquals(List.of(), CommittedFiles.notExactlyOnce(topic.valueCounts(), n), "Kafka records (read_committed)");
    long fileTransactions = CommittedFiles.committedNames(out).stream()
        .map(f -> f.substring(0, f.lastIndexOf('-'))).distinct().count();
    int markers = table.markerRows();
    assertTrue(markers < fileTransactions, "retired transactions' marker rows are deleted: " + markers
        + " left of about " + fileTransactions + " committed transactions");
  }
}
