package dev.twophase.testkit.statelog;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.StateLogSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** {@link FileStateLog} under the state log conformance suite: a directory owned as a whole. */
class FileStateLogConformanceTest extends StateLogConformanceSuite {

  /** Opens a {@link FileStateLog} on the settings' {@code directory}, with small segments. */
  public static final class Factory implements StateLogFactory {
    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) {
      return FileStateLog.builder(Path.of(settings.get("directory")))
          .segmentBytes(FileStateLog.MIN_SEGMENT_BYTES)
          .build();
    }
  }

  private final List<Path> stores = new ArrayList<>();

  @Override
  protected void setUpStore() throws IOException {
    stores.add(Files.createTempDirectory("file-state-log-suite-"));
  }

  @Override
  protected void tearDownStore() throws IOException {
    for (Path store : stores) {
      deleteTree(store);
    }
    stores.clear();
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of("directory", directory().toString());
  }

  /** The newest store's directory. */
  protected final Path directory() {
    return stores.get(stores.size() - 1);
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

  /** Flips a byte in the middle of the coordinator's last STATE record. */
  @Override
  protected void damageLastState(String coordinatorId) throws IOException {
    StateLogSnapshot.RecordPosition at = FileStateLog.inspect(directory())
        .coordinator(coordinatorId).orElseThrow()
        .lastState().orElseThrow()
        .position();
    try (FileChannel channel = FileChannel.open(at.file(), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      long offset = at.offset() + at.length() / 2;
      ByteBuffer b = ByteBuffer.allocate(1);
      channel.read(b, offset);
      b.put(0, (byte) ~b.get(0));
      b.rewind();
      channel.write(b, offset);
      channel.force(true);
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
