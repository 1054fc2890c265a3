package dev.twophase.testkit.statelog;

import dev.twophase.StateLog;
import dev.twophase.testing.InMemoryStateLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link InMemoryStateLog} under the state log conformance suite. Its store lives in this JVM (no
 * checks across JVMs) and has no checksums (no damage check); a new owner is {@link
 * InMemoryStateLog#reopen()} of the last one, which fences it whole ({@link
 * Ownership#WHOLE_LOG_FENCED_BY_NEXT_OWNER}).
 */
class InMemoryStateLogConformanceTest extends StateLogConformanceSuite {

  /**
   * Opens the in-memory log the settings' {@code store} names: a new log the first time, then
   * {@link InMemoryStateLog#reopen()} of the newest owner.
   */
  public static final class Factory implements StateLogFactory {
    private static final Map<String, InMemoryStateLog> NEWEST = new ConcurrentHashMap<>();

    @Override
    public StateLog open(Map<String, String> settings, boolean takeOver) {
      return NEWEST.compute(settings.get("store"),
          (store, newest) -> newest == null ? new InMemoryStateLog() : newest.reopen());
    }

    static void forget(String store) {
      NEWEST.remove(store);
    }
  }

  private final List<String> stores = new ArrayList<>();

  @Override
  protected void setUpStore() {
    stores.add(UUID.randomUUID().toString());
  }

  @Override
  protected void tearDownStore() {
    stores.forEach(Factory::forget);
    stores.clear();
  }

  @Override
  protected Map<String, String> storeSettings() {
    return Map.of("store", store());
  }

  /** The newest store's key. */
  protected final String store() {
    return stores.get(stores.size() - 1);
  }

  @Override
  protected Class<? extends StateLogFactory> factory() {
    return Factory.class;
  }

  @Override
  protected Ownership ownership() {
    return Ownership.WHOLE_LOG_FENCED_BY_NEXT_OWNER;
  }

  @Override
  protected boolean storeOutlivesJvm() {
    return false;
  }

  @Override
  protected boolean storeCanBeDamaged() {
    return false;
  }

  @Override
  protected void damageLastState(String coordinatorId) {
    throw new UnsupportedOperationException("an in-memory store has no checksums to fail");
  }
}
