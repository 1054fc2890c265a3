package dev.twophase.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Removing a participant, as flink.md's troubleshooting describes it: restoring a savepoint into a
 * sink without one of its participants is refused with a message that says what to do; stopping
 * with a savepoint and restoring it with the sink under a new uid (and the sink's old state
 * ignored) goes on with the remaining participant, every record once, while the removed one keeps
 * exactly what was committed up to the stop and nothing in progress.
 */
class RemoveParticipantIT {

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = Jobs.cluster(4);

  @TempDir
  Path tmp;

  @Test
  void aParticipantIsRemovedByRestoringTheSavepointIntoASinkWithANewUid() throws Exception {
    long n = 30_000;
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    String savepoints = tmp.resolve("savepoints").toUri().toString();

    // 1. Both participants, until some records are committed; stop with a savepoint.
    StreamExecutionEnvironment env = Jobs.env(2, 100, 0, null);
    job(env, n, 5, "sink", a, b);
    JobClient client = env.executeAsync("remove-1");
    while (CommittedFiles.lineCounts(a).size() < 3_000) {
      if (client.getJobExecutionResult().isDone()) {
        client.getJobExecutionResult().get();
        throw new AssertionError("the job ended before 3,000 records were committed");
      }
      Thread.sleep(50);
    }
    String savepoint = client.stopWithSavepoint(false, savepoints, SavepointFormatType.CANONICAL).get();
    client.getJobExecutionResult().get();
    Map<String, Integer> bAtStop = CommittedFiles.lineCounts(b);
    assertEquals(CommittedFiles.lineCounts(a), bAtStop, "the stop committed the same records to both");
    assertEquals(List.of(), CommittedFiles.inProgress(b), "nothing of b left in progress by the stop");

    // 2. The same sink uid without b: refused, with the way out in the message.
    StreamExecutionEnvironment refused = Jobs.env(2, 100, 0, savepoint);
    job(refused, n, 0, "sink", a);
    Exception e = assertThrows(Exception.class, () -> refused.execute("remove-2"));
    FatalTwoPhaseException cause = Causes.find(e, FatalTwoPhaseException.class);
    assertNotNull(cause, "the failure names the missing participant: " + e);
    assertTrue(cause.getMessage().contains("participant 'b', which the sink does not have"), cause.getMessage());
    assertTrue(cause.getMessage().contains("new uid"), cause.getMessage());

    // 3. A new sink uid, the old sink's state ignored: the sources go on from the savepoint.
    Configuration conf = new Configuration();
    conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
    StreamExecutionEnvironment removed = Jobs.env(2, 100, 0, savepoint, conf);
    job(removed, n, 0, "sink-without-b", a);
    removed.execute("remove-3");

    assertEquals(List.of(), CommittedFiles.notExactlyOnce(CommittedFiles.lineCounts(a), n));
    assertEquals(List.of(), CommittedFiles.inProgress(a));
    assertEquals(bAtStop, CommittedFiles.lineCounts(b), "b is as the stop left it");
    assertEquals(List.of(), CommittedFiles.inProgress(b));
  }

  private static void job(StreamExecutionEnvironment env, long n, int throttle, String uid, Path... dirs) {
    TwoPhaseSink.Builder<String> sink = TwoPhaseSink.builder("remove");
    for (Path dir : dirs) {
      sink.participant(dir.getFileName().toString(), Participants.files(dir.toString()));
    }
    Jobs.numbers(env, n)
        .map(new Throttle(throttle)).uid("throttle")
        .sinkTo(sink.build()).uid(uid);
  }
}
