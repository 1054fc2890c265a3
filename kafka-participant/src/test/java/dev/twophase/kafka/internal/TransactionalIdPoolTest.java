package dev.twophase.kafka.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.twophase.FatalTwoPhaseException;
import dev.twophase.kafka.TransactionalIdPoolExhaustedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TransactionalIdPoolTest {

  private static final String SETTING = "KafkaParticipant.Builder.transactionalIdPoolSize";

  private static TransactionalIdPool pool(int size, Duration wait) {
    return new TransactionalIdPool("orders", "app-kafka-", 7, size, wait, SETTING);
  }

  @Test
  void idsAreDeterministicFromThePrefixTheOwnerAndTheEpoch() {
    assertEquals(List.of("orders-app-kafka-tid-e7-0", "orders-app-kafka-tid-e7-1", "orders-app-kafka-tid-e7-2"),
        pool(3, Duration.ZERO).ids());
    assertEquals(pool(3, Duration.ZERO).ids(), pool(3, Duration.ofSeconds(1)).ids());
    assertEquals("orders-app-kafka-tid-", pool(1, Duration.ZERO).base());
    assertEquals("orders-app-kafka-tid-", TransactionalIdScheme.base("orders", "app-kafka"));
    assertFalse(pool(2, Duration.ZERO).ids().equals(
        new TransactionalIdPool("orders", "app-other-", 7, 2, Duration.ZERO, SETTING).ids()));
  }

  /** A zombie must never register an id of a newer owner: no id is shared by two epochs. */
  @Test
  void everyEpochHasIdsOfItsOwn() {
    List<String> seven = pool(12, Duration.ZERO).ids();
    for (long epoch : List.of(0L, 1L, 8L, 70L, 77L, Long.MAX_VALUE)) {
      List<String> other = new TransactionalIdPool("orders", "app-kafka-", epoch, 12, Duration.ZERO, SETTING).ids();
      assertTrue(other.stream().noneMatch(seven::contains), epoch + ": " + other);
      assertTrue(other.stream().allMatch(id -> id.startsWith("orders-app-kafka-tid-")), other.toString());
    }
  }

  @Test
  void indexOfKnowsOnlyItsOwnIds() {
    TransactionalIdPool p = pool(12, Duration.ZERO);
    assertEquals(0, p.indexOf("orders-app-kafka-tid-e7-0"));
    assertEquals(11, p.indexOf("orders-app-kafka-tid-e7-11"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e7-12"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e7-01"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e7-"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e7-1x"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e8-1"), "another epoch's");
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-e07-1"));
    assertEquals(-1, p.indexOf("orders-app-kafka-tid-1"), "an earlier release's, without an epoch");
    assertEquals(-1, p.indexOf("orders-app-kafka2-tid-e7-1"));
    assertThrows(IllegalArgumentException.class, () -> p.release("other-0"));
    assertThrows(IllegalArgumentException.class, () -> p.release("orders-app-kafka-tid-e6-0"));
  }

  @Test
  void acquireTakesTheLowestFreeIdAndNeverGivesOneTwice() throws Exception {
    TransactionalIdPool p = pool(3, Duration.ZERO);
    assertEquals("orders-app-kafka-tid-e7-0", p.acquire("t0"));
    assertEquals("orders-app-kafka-tid-e7-1", p.acquire("t1"));
    p.release("orders-app-kafka-tid-e7-0");
    p.release("orders-app-kafka-tid-e7-0"); // idempotent
    assertEquals("orders-app-kafka-tid-e7-0", p.acquire("t2"));
    assertEquals("orders-app-kafka-tid-e7-2", p.acquire("t3"));
    assertEquals(3, p.heldCount());
    assertThrows(IllegalStateException.class, () -> p.hold("orders-app-kafka-tid-e7-1", "recovered"));
  }

  @Test
  void releaseIfHeldByLeavesALaterHolderAlone() throws Exception {
    TransactionalIdPool p = pool(1, Duration.ZERO);
    String id = p.acquire("t1");
    assertTrue(p.releaseIfHeldBy(id, "t1"));
    assertEquals(id, p.acquire("t2"));
    assertFalse(p.releaseIfHeldBy(id, "t1")); // t1 retired late: t2 keeps the id
    assertTrue(p.isHeld(id));
  }

  @Test
  void runningOutFailsAtOnceWithoutAWaitAndNamesTheSetting() throws Exception {
    TransactionalIdPool p = pool(2, Duration.ZERO);
    p.acquire("orders-1-0");
    p.acquire("orders-1-1");
    TransactionalIdPoolExhaustedException e = assertThrows(TransactionalIdPoolExhaustedException.class, () -> p.acquire("orders-1-2"));
    assertTrue(e.getMessage().contains(SETTING), e.getMessage());
    assertTrue(e.getMessage().contains("orders-app-kafka-tid-e7-1 by orders-1-1"), e.getMessage());
    assertTrue(e.getMessage().contains("no free transactional id for orders-1-2"), e.getMessage());
    assertInstanceOf(dev.twophase.RetriableTwoPhaseException.class, e, "ids come free as commits retire");
  }

  @Test
  void runningOutWaitsForARelease() throws Exception {
    TransactionalIdPool p = pool(1, Duration.ofSeconds(30));
    String id = p.acquire("first");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch waiting = new CountDownLatch(1);
      Future<String> second = other.submit(() -> {
        waiting.countDown();
        return p.acquire("second");
      });
      waiting.await();
      Thread.sleep(100);
      assertFalse(second.isDone());
      p.release(id);
      assertEquals(id, second.get(10, TimeUnit.SECONDS));
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void runningOutFailsAfterTheWait() throws Exception {
    TransactionalIdPool p = pool(1, Duration.ofMillis(200));
    p.acquire("first");
    long t0 = System.nanoTime();
    TransactionalIdPoolExhaustedException e = assertThrows(TransactionalIdPoolExhaustedException.class, () -> p.acquire("second"));
    assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(190));
    assertTrue(e.getMessage().contains("within PT0.2S"), e.getMessage());
  }

  @Test
  void closeFailsWaiters() throws Exception {
    TransactionalIdPool p = pool(1, Duration.ofSeconds(30));
    p.acquire("first");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      Future<String> second = other.submit(() -> p.acquire("second"));
      Thread.sleep(100);
      p.close();
      Exception e = assertThrows(Exception.class, () -> second.get(10, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof FatalTwoPhaseException, e.toString());
      assertTrue(e.getCause().getMessage().contains("is closed"), e.toString());
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void concurrentHoldersNeverShareAnId() throws Exception {
    TransactionalIdPool p = pool(3, Duration.ofSeconds(30));
    Set<String> inUse = ConcurrentHashMap.newKeySet();
    AtomicInteger clashes = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        all.add(threads.submit(() -> {
          for (int i = 0; i < 500; i++) {
            String id = p.acquire(Thread.currentThread().getName());
            if (!inUse.add(id)) {
              clashes.incrementAndGet();
            }
            inUse.remove(id);
            p.release(id);
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(0, clashes.get());
    assertEquals(0, p.heldCount());
  }

  @Test
  void badSettingsAreRefusedWithWhatToFix() {
    IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> pool(0, Duration.ZERO));
    assertTrue(size.getMessage().contains(SETTING), size.getMessage());
    IllegalArgumentException prefix = assertThrows(IllegalArgumentException.class,
        () -> new TransactionalIdPool("bad prefix", "o-", 1, 1, Duration.ZERO, SETTING));
    assertTrue(prefix.getMessage().contains("letters, digits"), prefix.getMessage());
    assertThrows(IllegalArgumentException.class, () -> pool(1, Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> new TransactionalIdPool("orders", "o-", -1, 1, Duration.ZERO, SETTING));
  }
}
