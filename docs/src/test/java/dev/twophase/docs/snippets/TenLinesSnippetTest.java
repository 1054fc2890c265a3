package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The README's "Ten lines" (also docs/README.md), run as shown: its state log in {@code ./state}. */
class TenLinesSnippetTest {

  private static final Path STATE = Path.of("state");

  @BeforeEach
  @AfterEach
  void deleteTheStateDirectory() throws IOException {
    Directories.deleteTree(STATE);
  }

  @Test
  void tenLinesCommitEveryRecordOnce() throws Exception {
    // snippet: ten-lines
    try (FileStateLog log = FileStateLog.open(Path.of("state"))) {
      InMemoryParticipant<String> sink = new InMemoryParticipant<>(new InMemoryResource<>());
      Coordinator coordinator = Coordinator.builder("orders", log)
          .participant("sink", sink)
          .config(CoordinatorConfig.custom().checkpointEveryRecords(1_000).build())
          .build();                                  // recovers what a crash left, then begins
      Output<String> out = coordinator.output(sink);
      for (String record : List.of("a", "b", "c")) {
        out.write(record);                           // into the current transaction
        coordinator.maybeCheckpoint();               // pre-commit, log the decision, commit
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(10));
      coordinator.close();
    }
    // end snippet
    // finish() took the one checkpoint of the three records, and its commit completed
    assertEquals(1, FileStateLog.inspect(STATE).coordinator("orders").orElseThrow().lastCompletedCheckpointId());
  }
}
