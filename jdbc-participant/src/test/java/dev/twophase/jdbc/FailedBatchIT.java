package dev.twophase.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.CheckpointFailedException;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.TwoPhaseException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A batch of the insert path that the database refuses (a primary-key violation) fails its
 * checkpoint on every database and path alike, and none of the transaction's rows are committed.
 * PostgreSQL aborts the whole transaction by itself; H2 and MariaDB roll back only the failed
 * statement's rows and would commit the rest, so the participant refuses to prepare.
 */
class FailedBatchIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.twophase.jdbc.TestDatabase#all")
  void aFailedBatchFailsTheCheckpointAndNoneOfItsTransactionsRowsAreCommitted(TestDatabase db)
      throws Exception {
    db.rollBackLeftovers().run();
    db.execute("CREATE TABLE IF NOT EXISTS failed_batch_rows (id VARCHAR(100) NOT NULL PRIMARY KEY)");
    String run = "fb" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    JdbcParticipant<String> participant = db.builder().get()
        .<String>insert("INSERT INTO failed_batch_rows (id) VALUES (?)", (s, id) -> s.setString(1, id))
        .batchSize(2)
        .build();
    try (FileStateLog log = FileStateLog.open(tmp.resolve("log"));
        Coordinator coordinator = Coordinator.builder(run, log).participant("db", participant).build()) {
      Output<String> out = coordinator.output(participant);
      out.write(run + "-a");
      out.write(run + "-b"); // the first batch: accepted
      out.write(run + "-c");
      assertThrows(TwoPhaseException.class, () -> out.write(run + "-a"), // the second: a duplicate key
          "a batch with a duplicate key");
      TwoPhaseException refused = assertThrows(TwoPhaseException.class, () -> out.write(run + "-d"),
          "a record after the failed batch");
      assertTrue(refused.getMessage().contains("can no longer be committed"), refused.getMessage());

      CheckpointFailedException failed = assertThrows(CheckpointFailedException.class, coordinator::checkpoint);
      assertTrue(failed.getMessage().contains("can no longer be committed"), failed.getMessage());
      assertEquals(0, rows(db, run), db + ": rows of the failed checkpoint's transaction were committed");
      assertEquals(List.of(), ours(db, run), "prepared transactions left of the failed checkpoint");

      // The coordinator goes on in a new transaction, and the replayed records commit.
      out.write(run + "-a");
      out.write(run + "-b");
      out.write(run + "-c");
      coordinator.checkpoint().awaitCommitted(WAIT);
      assertEquals(3, rows(db, run));
    }
    assertEquals(List.of(), ours(db, run));
  }

  private static long rows(TestDatabase db, String run) throws Exception {
    return db.count("SELECT COUNT(*) FROM failed_batch_rows WHERE id LIKE '" + run + "-%'");
  }

  private static List<String> ours(TestDatabase db, String run) throws Exception {
    return db.prepared().get().stream().filter(n -> n.startsWith(run)).toList();
  }
}
