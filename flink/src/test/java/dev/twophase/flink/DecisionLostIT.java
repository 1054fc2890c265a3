package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.DecisionLostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Restoring an older savepoint after later checkpoints were committed would write the records since
 * the savepoint a second time, silently with Flink's own sinks. Here the restored writer finds
 * committed the transaction the savepoint holds as open and fails with a
 * {@link DecisionLostException}; with {@code continueAfterLostDecision()} the job goes on and the
 * duplicates are the user's choice.
 */
class DecisionLostIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(2);

  @TempDir
  Path tmp;

  @Test
  void restoringAnOlderSavepointIsALostDecisionUnlessOptedIn() throws Exception {
    long n = 30_000;
    Path out = tmp.resolve("out");

    // A savepoint, then more checkpoints committed (the transaction open in the savepoint among
    // them), then the job is cancelled.
    StreamExecutionEnvironment env = Jobs.env(1, 100, 0, null);
    job(env, out, n, 5, false);
    JobClient client = env.executeAsync("decision-lost-1");
    awaitCommitted(client, out, 2_000);
    String savepoint = client.triggerSavepoint(tmp.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL).get();
    int atSavepoint = CommittedFiles.lineCounts(out).size();
    awaitCommitted(client, out, atSavepoint + 3_000);
    client.cancel().get();
    assertThrows(Exception.class, () -> client.getJobExecutionResult().get());

    StreamExecutionEnvironment refused = Jobs.env(1, 100, 0, savepoint);
    Jobs.numbers(refused, n).map(new Throttle(0)).uid("throttle")
        .sinkTo(TwoPhaseSink.<String>builder("decision")
            .participant("files", HookedFiles.counted(out.toString()))
            .build()).uid("sink");
    Exception failure = assertThrows(Exception.class, () -> refused.execute("decision-lost-2"));
    DecisionLostException lost = Causes.find(failure, DecisionLostException.class);
    assertNotNull(lost, "a DecisionLostException in " + failure);
    assertEquals("files", lost.participant().orElseThrow());
    assertEquals(0, HookedFiles.notClosed(out.toString()), "the failed start closed its participants");

    StreamExecutionEnvironment accepted = Jobs.env(1, 100, 0, savepoint);
    job(accepted, out, n, 0, true);
    accepted.execute("decision-lost-3");
    Map<String, Integer> counts = CommittedFiles.lineCounts(out);
    List<String> missing = CommittedFiles.notExactlyOnce(counts, n).stream().filter(p -> p.endsWith(" x0")).toList();
    assertEquals(List.of(), missing, "nothing missing");
    assertTrue(counts.values().stream().anyMatch(c -> c == 2), "the records after the savepoint twice, as accepted");
    assertEquals(List.of(), CommittedFiles.inProgress(out));
  }

  private static void job(StreamExecutionEnvironment env, Path out, long n, int throttle, boolean continueAfterLoss) {
    TwoPhaseSink.Builder<String> sink = TwoPhaseSink.<String>builder("decision")
        .participant("files", Participants.files(out.toString()));
    if (continueAfterLoss) {
      sink.continueAfterLostDecision();
    }
    Jobs.numbers(env, n).map(new Throttle(throttle)).uid("throttle").sinkTo(sink.build()).uid("sink");
  }

  private static void awaitCommitted(JobClient client, Path out, int atLeast) throws Exception {
    while (CommittedFiles.lineCounts(out).size() < atLeast) {
      if (client.getJobExecutionResult().isDone()) {
        client.getJobExecutionResult().get();
        throw new AssertionError("the job ended before " + atLeast + " records were committed");
      }
      Thread.sleep(50);
    }
  }
}
