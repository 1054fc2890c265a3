package dev.twophase.kafka.statelog;

import dev.twophase.FileStateLog;
import dev.twophase.StateLog;
import dev.twophase.kafka.KafkaStateLog;
import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an append costs at 1 and 16 concurrent coordinators, each on its own thread, on the
 * in-JVM broker (one replica, no flush per message: the round trips of a transaction, not disk
 * syncs), beside a {@link FileStateLog} for scale. Prints appends/s and the mean latency; asserts
 * nothing about time. Off by default:
 *
 * <pre>
 * mvn -B -o -pl kafka-participant -am verify -Dtest=none -Dit.test=KafkaStateLogAppendRateIT \
 *     -Dtwophase.statelog.rate=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "twophase.statelog.rate", matches = "true")
class KafkaStateLogAppendRateIT {

  private static final long SECONDS = Long.getLong("twophase.statelog.rate.seconds", 10);
  private static final int PAYLOAD = 256;

  @TempDir Path tmp;

  @Test
  void appendsPerSecond() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    for (int coordinators : new int[] {1, 16}) {
      String topic = "rate-" + UUID.randomUUID();
      measure("KafkaStateLog", coordinators, () -> KafkaStateLog.builder(
              Map.of("bootstrap.servers", broker.bootstrapServers()), topic)
          .createTopic(16, (short) 1).build());
      Path dir = tmp.resolve("file-" + coordinators);
      measure("FileStateLog", coordinators, () -> FileStateLog.open(dir));
    }
  }

  private static void measure(String name, int coordinators, Supplier<StateLog> open)
      throws Exception {
    try (StateLog log = open.get()) {
      List<StateLog.CoordinatorLog> views = new ArrayList<>();
      for (int i = 0; i < coordinators; i++) {
        StateLog.CoordinatorLog v = log.open("rate-" + i);
        v.appendState(0, new byte[PAYLOAD]); // warm-up: the producer's first transaction
        views.add(v);
      }
      AtomicLong appends = new AtomicLong();
      AtomicLong nanos = new AtomicLong();
      CountDownLatch done = new CountDownLatch(coordinators);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
      long started = System.nanoTime();
      for (StateLog.CoordinatorLog v : views) {
        Thread t = new Thread(() -> {
          try {
            long cp = 1;
            while (System.nanoTime() < end) {
              long t0 = System.nanoTime();
              v.appendState(cp++, new byte[PAYLOAD]);
              nanos.addAndGet(System.nanoTime() - t0);
              appends.incrementAndGet();
            }
          } finally {
            done.countDown();
          }
        }, "append-rate-" + v.coordinatorId());
        t.start();
      }
      done.await();
      double secs = (System.nanoTime() - started) / 1e9;
      System.out.printf("APPEND RATE %s coordinators=%d: %.0f appends/s, mean latency %.2f ms "
              + "(%d appends in %.1f s, %d-byte states)%n", name, coordinators,
          appends.get() / secs, nanos.get() / 1e6 / Math.max(1, appends.get()), appends.get(),
          secs, PAYLOAD);
    }
  }
}
