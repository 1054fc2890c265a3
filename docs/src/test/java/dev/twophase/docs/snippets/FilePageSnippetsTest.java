package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testing.InMemoryStateLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** file-participant.md's "Use", run as shown: its files under {@code ./out/orders}. */
class FilePageSnippetsTest {

  private static final Path OUT = Path.of("out");

  @BeforeEach
  @AfterEach
  void deleteTheOutputDirectory() throws IOException {
    Directories.deleteTree(OUT);
  }

  @Test
  void theCheckpointPublishesOnePartInTheDaysBucket() throws Exception {
    Coordinator coordinator = use(new InMemoryStateLog());
    coordinator.close(); // waits for the commit the checkpoint started
    // the part file, beside the participant's claim file (.twophase-<prefix>claim, see "Files on disk")
    List<String> files = Directories.files(OUT.resolve("orders")).stream()
        .filter(name -> !name.startsWith(".twophase-")).toList();
    assertEquals(1, files.size(), files.toString());
    String part = files.get(0);
    assertTrue(part.startsWith("2026-11-29/part-orders-files-") && part.endsWith("-0.csv"), part);
    assertEquals(List.of("2026-11-29,order-1,12.50"), Files.readAllLines(OUT.resolve("orders").resolve(part)));
  }

  private static Coordinator use(StateLog log) throws Exception {
    // snippet: file-use
    FileParticipant<CharSequence> files = FileParticipant.builder(Path.of("out/orders"), RecordEncoders.lines())
        .suffix(".csv")
        .maxPartBytes(64L * 1024 * 1024)                 // roll to a new part at 64 MiB
        .bucketAssigner(line -> line.toString().substring(0, 10)) // e.g. one directory per day
        .build();

    Coordinator coordinator = Coordinator.builder("orders", log)
        .participant("files", files)
        .build();
    Output<CharSequence> out = coordinator.output(files);
    out.write("2026-11-29,order-1,12.50");
    coordinator.checkpoint();
    // end snippet
    return coordinator;
  }
}
