package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.twophase.EmbeddedCoordinator;
import dev.twophase.Output;
import dev.twophase.testing.InMemoryParticipant;
import dev.twophase.testing.InMemoryResource;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * protocol.md's embedded-mode block, run as an engine would: a first attempt snapshots checkpoint
 * 1 and dies before its completion is notified; the second attempt restores those bytes (recovery
 * commits checkpoint 1), then writes, snapshots and completes checkpoint 2.
 */
class ProtocolPageSnippetsTest {

  @Test
  void aRestoredAttemptCommitsTheRestoredCheckpointThenItsOwn() {
    InMemoryResource<String> resource = new InMemoryResource<>();
    InMemoryParticipant<String> firstFiles = new InMemoryParticipant<>(resource);
    EmbeddedCoordinator first = EmbeddedCoordinator.builder("sink-3")
        .participant("files", firstFiles).ownerEpoch(1).build();
    first.output(firstFiles).write("a");
    byte[] restoredBytes = first.snapshot(1);      // the engine's checkpoint 1; then the attempt dies
    assertEquals(List.of(), resource.committedRecords());

    EmbeddedCoordinator second = attempt(new InMemoryParticipant<>(resource), restoredBytes, 2, "b", 2);
    assertEquals(List.of("a", "b"), resource.committedRecords());
    second.close();
  }

  @SuppressWarnings("unused") // the snippet shows the engine's calls; it stores no checkpoint
  private static EmbeddedCoordinator attempt(InMemoryParticipant<String> files, byte[] restoredBytes,
      long attemptNumber, String record, long checkpointId) {
    // snippet: protocol-embedded
    EmbeddedCoordinator coordinator = EmbeddedCoordinator.builder("sink-3")
        .participant("files", files)
        .restoreFrom(restoredBytes)              // omit on a fresh start
        .ownerEpoch(attemptNumber)               // optional; must grow with every restart
        .build();                                // recovers, then begins
    Output<String> out = coordinator.output(files);

    // engine callbacks
    out.write(record);                                   // per record
    byte[] state = coordinator.snapshot(checkpointId);   // store in the engine's checkpoint
    coordinator.notifyCheckpointComplete(checkpointId);  // commit
    // end snippet
    return coordinator;
  }
}
