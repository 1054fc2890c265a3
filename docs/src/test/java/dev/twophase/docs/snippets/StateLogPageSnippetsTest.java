package dev.twophase.docs.snippets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.StateLogSnapshot;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * state-log.md's blocks, run: several coordinators in one log, and a power loss modelled by
 * cutting the last STATE record of a coordinator, which the next owner of the log cuts off.
 */
class StateLogPageSnippetsTest {

  @TempDir Path tmp;

  @Test
  void severalCoordinatorsShareOneLog() throws Exception {
    Path dir = tmp.resolve("state");
    int partitions = 3;
    List<Coordinator> coordinators = new ArrayList<>();
    // snippet: state-log-several-coordinators
    try (FileStateLog log = FileStateLog.open(dir)) {
      for (int p = 0; p < partitions; p++) {
        coordinators.add(Coordinator.builder("orders-p" + p, log)
            .participant("files", newFileParticipant(p))
            .build());
      }
      // run them; close every coordinator before the log
      for (Coordinator coordinator : coordinators) {
        coordinator.close();
      }
    }
    // end snippet
    assertEquals(List.of("orders-p0", "orders-p1", "orders-p2"),
        List.copyOf(FileStateLog.inspect(dir).coordinators().keySet()).stream().sorted().toList());
  }

  private FileParticipant<CharSequence> newFileParticipant(int p) {
    return FileParticipant.builder(tmp.resolve("out-" + p), RecordEncoders.lines()).build();
  }

  @Test
  void aTornStateRecordIsCutOffByTheNextOwner() throws Exception {
    Path dir = tmp.resolve("state");
    try (FileStateLog log = FileStateLog.open(dir)) {
      Coordinator coordinator = Coordinator.builder("orders", log).participant("files", newFileParticipant(0)).build();
      coordinator.checkpoint();
      coordinator.checkpoint();
      coordinator.close();
    }
    StateLogSnapshot.State before = FileStateLog.inspect(dir).coordinator("orders").orElseThrow().lastState().orElseThrow();

    // snippet: state-log-torn-record
    StateLogSnapshot.RecordPosition last = FileStateLog.inspect(dir)
        .coordinator("orders").orElseThrow().lastState().orElseThrow().position();
    try (FileChannel ch = FileChannel.open(last.file(), StandardOpenOption.WRITE)) {
      ch.truncate(last.offset() + last.length() / 2); // the next owner cuts the record off
    }
    // end snippet

    FileStateLog.open(dir).close();
    StateLogSnapshot.State after = FileStateLog.inspect(dir).coordinator("orders").orElseThrow().lastState().orElseThrow();
    assertTrue(after.position().end() <= last.offset(), "the torn record is gone: " + after);
    assertTrue(after.checkpointId() < before.checkpointId(), before + " then " + after);
  }
}
