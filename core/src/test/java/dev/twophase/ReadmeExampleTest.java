package dev.twophase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's "Ten lines", verbatim but for the directory, so that the example keeps compiling. */
class ReadmeExampleTest {

  @TempDir Path dir;

  @Test
  void readmeExampleRuns() {
    InMemoryResource<String> resource = new InMemoryResource<>();
    // --- from README.md
    try (FileStateLog log = FileStateLog.open(dir.resolve("state"))) {
      InMemoryParticipant<String> sink = new InMemoryParticipant<>(resource);
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
    // ---
    assertEquals(List.of("a", "b", "c"), resource.committedRecords());
  }
}
