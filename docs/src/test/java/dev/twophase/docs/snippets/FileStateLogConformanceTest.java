package dev.twophase.docs.snippets;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.StateLogSnapshot;
import dev.twophase.testkit.statelog.Ownership;
import dev.twophase.testkit.statelog.StateLogConformanceSuite;
import dev.twophase.testkit.statelog.StateLogFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

// state-log-testing.md's example: the suite on FileStateLog, as a user would write it.
// snippet: state-log-suite
class FileStateLogConformanceTest extends StateLogConformanceSuite {

  /** Public, with a public no-argument constructor: the suite's child JVMs create it too. */
  public static final class Factory implements StateLogFactory {
    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) {
      return FileStateLog.builder(Path.of(settings.get("directory")))
          .segmentBytes(FileStateLog.MIN_SEGMENT_BYTES) // compacts often
          .build();
    }
  }

  private final List<Path> directories = new ArrayList<>();

  @Override
  protected void setUpStore() throws IOException {
    directories.add(Files.createTempDirectory("state-log-suite-"));
  }

  @Override
  protected void tearDownStore() throws IOException {
    for (Path directory : directories) {
      Directories.deleteTree(directory);
    }
    directories.clear();
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of("directory", directories.get(directories.size() - 1).toString());
  }

  @Override
  protected Class<? extends StateLogFactory> factory() {
    return Factory.class;
  }

  @Override
  protected Ownership ownership() {
    return Ownership.WHOLE_LOG;
  }

  @Override
  protected void compact(StateLog log) {
    ((FileStateLog) log).compact();
  }

  /** Flips a byte in the middle of the coordinator's last record; its checksum stays. */
  @Override
  protected void damageLastState(String coordinatorId) throws IOException {
    Path directory = directories.get(directories.size() - 1);
    StateLogSnapshot.RecordPosition at = FileStateLog.inspect(directory)
        .coordinator(coordinatorId).orElseThrow()
        .lastState().orElseThrow()
        .position();
    try (FileChannel file = FileChannel.open(at.file(), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      long offset = at.offset() + at.length() / 2;
      file.read(b, offset);
      b.put(0, (byte) ~b.get(0)).rewind();
      file.write(b, offset);
    }
  }
}
// end snippet
