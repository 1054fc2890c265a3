package dev.twophase.testkit.statelog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The suite's {@link Ownership#PER_COORDINATOR} checks on {@link SharedDirectoryStateLog}, a log
 * that processes share and claim coordinator by coordinator, so that those checks are shown to
 * pass on a correct log (and, in the self-test, to fail on broken ones).
 */
class SharedDirectoryStateLogConformanceTest extends StateLogConformanceSuite {

  private final List<Path> stores = new ArrayList<>();

  @Override
  protected void setUpStore() throws IOException {
    stores.add(Files.createTempDirectory("shared-state-log-suite-"));
  }

  @Override
  protected void tearDownStore() throws IOException {
    for (Path store : stores) {
      FileStateLogConformanceTest.deleteTree(store);
    }
    stores.clear();
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of("log", "shared", "directory", stores.get(stores.size() - 1).toString());
  }

  @Override
  protected Class<? extends StateLogFactory> factory() {
    return SharedDirectoryStateLog.Factory.class;
  }

  @Override
  protected Ownership ownership() {
    return Ownership.PER_COORDINATOR;
  }

  /** Flips the last payload byte of the coordinator's state file. */
  @Override
  protected void damageLastState(String coordinatorId) throws IOException {
    Path file = stores.get(stores.size() - 1).resolve(
        HexFormat.of().formatHex(coordinatorId.getBytes(StandardCharsets.UTF_8)) + ".state");
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 1] ^= (byte) 0x5A;
    Files.write(file, bytes);
  }
}
