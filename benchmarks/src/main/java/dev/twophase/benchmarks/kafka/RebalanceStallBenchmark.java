package dev.twophase.benchmarks.kafka;

import dev.twophase.kafka.testbroker.KafkaTestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a rebalance that moves one task costs the tasks that stay: 3 input partitions fed at a
 * steady rate, read by 2 workers (one holds two tasks); a third worker joins, and one task moves
 * to it. Each output record goes to the partition of its input record (so that one task's
 * transactions alone decide when an output partition's records become visible) and names the
 * worker that copied it (its value's second byte; the first, written by the feeder, names the
 * partition). A {@code read_committed} consumer watches the output: per partition, it arrives in
 * bursts, one per commit; a gap is the time between two bursts.
 *
 * <p>Printed per run: the longest gap of any partition in the steady seconds before the join, and,
 * from the join on, the longest gap of the partitions that stayed with their worker and that of
 * the partition that moved; each also in commit intervals (-1: a run in which every partition
 * moved, or none did; the medians leave such runs out). The same for {@link
 * dev.twophase.kafka.group.GroupRunner} workers and for Kafka Streams instances ({@code
 * exactly_once_v2}, one stream thread each) at the same commit interval, taking turns. Arguments:
 * {@code [rounds] [commit interval ms] [records per second per partition]}.
 */
public final class RebalanceStallBenchmark {

  private static final int PARTITIONS = 3;
  private static final Duration STEADY = Duration.ofSeconds(5);
  private static final Duration AFTER_JOIN = Duration.ofSeconds(15);

  private RebalanceStallBenchmark() {}

  /** One run's longest gaps, in milliseconds. */
  record Gaps(long steady, long stayed, long moved, int movedCount) {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int commitMs = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int rate = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
    Path dir = Files.createDirectories(Path.of("target", "stall-bench"));
    try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker-" + UUID.randomUUID().toString()
        .substring(0, 8)), 2, Map.of())) {
      String bootstrap = broker.bootstrapServers();
      Map<String, List<Gaps>> results = new HashMap<>();
      run(bootstrap, dir, "twophase", commitMs, rate); // warm-up, not counted
      run(bootstrap, dir, "streams", commitMs, rate);
      for (int round = 0; round < rounds; round++) {
        List<String> order = round % 2 == 0 ? List.of("twophase", "streams") : List.of("streams", "twophase");
        for (String variant : order) {
          Gaps g = run(bootstrap, dir, variant, commitMs, rate);
          results.computeIfAbsent(variant, v -> new ArrayList<>()).add(g);
          System.out.printf(Locale.ROOT, "round %d %-8s steady %4d ms (%.1f intervals), after the join: stayed %4d ms"
                  + " (%.1f intervals), moved (%d) %5d ms (%.1f intervals)%n", round + 1, variant, g.steady(),
              g.steady() / (double) commitMs, g.stayed(), g.stayed() / (double) commitMs, g.movedCount(), g.moved(),
              g.moved() / (double) commitMs);
        }
      }
      System.out.printf(Locale.ROOT, "%d partitions at %d records/s each, commit interval %d ms, 2 -> 3 workers, "
          + "%d rounds (medians of the longest gaps)%n", PARTITIONS, rate, commitMs, rounds);
      for (String variant : List.of("twophase", "streams")) {
        List<Gaps> gs = results.get(variant);
        long steady = median(gs.stream().map(Gaps::steady).toList());
        long stayed = median(gs.stream().map(Gaps::stayed).toList());
        long moved = median(gs.stream().map(Gaps::moved).toList());
        System.out.printf(Locale.ROOT, "%-8s steady %d ms, tasks that stayed %d ms (%.1f intervals), "
                + "the task that moved %d ms (%.1f intervals)%n", variant, steady, stayed, stayed / (double) commitMs,
            moved, moved / (double) commitMs);
      }
    }
  }

  /** The median of the runs that had such partitions, or -1. */
  private static long median(List<Long> xs) {
    List<Long> sorted = xs.stream().filter(x -> x >= 0).sorted().toList();
    return sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2);
  }

  private static Gaps run(String bootstrap, Path dir, String variant, int commitMs, int rate) throws Exception {
    String id = "stall-" + variant + "-" + UUID.randomUUID().toString().substring(0, 8);
    String input = "in-" + id;
    String output = "out-" + id;
    GroupScalingBenchmark.createTopic(bootstrap, input, PARTITIONS);
    GroupScalingBenchmark.createTopic(bootstrap, output, PARTITIONS);
    List<AutoCloseable> workers = new ArrayList<>();
    try (Feeder feeder = new Feeder(bootstrap, input, rate); Watcher watcher = new Watcher(bootstrap, output)) {
      for (int w = 0; w < 2; w++) {
        workers.add(worker(bootstrap, dir, variant, input, output, id, w, commitMs));
      }
      watcher.awaitWorkers(2, Duration.ofMinutes(2)); // both workers run tasks: the group formed
      watcher.watch(Duration.ofSeconds(3)); // and settles
      watcher.reset();
      watcher.watch(STEADY);
      long steady = watcher.longestGap(false);
      watcher.reset();
      workers.add(worker(bootstrap, dir, variant, input, output, id, 2, commitMs));
      watcher.watch(AFTER_JOIN);
      return new Gaps(steady, watcher.longestGap(false), watcher.longestGap(true), watcher.moved());
    } finally {
      for (AutoCloseable c : workers) {
        c.close();
      }
    }
  }

  private static AutoCloseable worker(String bootstrap, Path dir, String variant, String input, String output,
      String id, int w, int commitMs) throws Exception {
    if (variant.equals("twophase")) {
      return GroupScalingBenchmark.twophaseWorker(bootstrap, input, id, w, commitMs,
          value -> new ProducerRecord<>(output, (int) value[0], null, signed(value, w)));
    }
    return GroupScalingBenchmark.streamsWorker(bootstrap, dir, input, output, id, w, commitMs,
        value -> signed(value, w));
  }

  /** A copy of an input value that names the worker {@code w} that copied it, in its second byte. */
  private static byte[] signed(byte[] value, int w) {
    byte[] copy = value.clone();
    copy[1] = (byte) w;
    return copy;
  }

  /** Writes {@code rate} records a second to each partition, each naming its partition in its first byte. */
  private static final class Feeder implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Feeder(String bootstrap, String topic, int rate) {
      KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
          bootstrap, ProducerConfig.LINGER_MS_CONFIG, 2), new ByteArraySerializer(), new ByteArraySerializer());
      thread = new Thread(() -> {
        try (producer) {
          long started = System.nanoTime();
          long sent = 0;
          while (!stop.get()) {
            long due = (System.nanoTime() - started) * rate / 1_000_000_000L;
            for (; sent < due; sent++) {
              for (int p = 0; p < PARTITIONS; p++) {
                byte[] value = new byte[100];
                Arrays.fill(value, (byte) 'x');
                value[0] = (byte) p;
                producer.send(new ProducerRecord<>(topic, p, null, value));
              }
            }
            Thread.sleep(1);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "stall-feeder");
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  /** Watches the output: per input partition, when its bursts arrived and which worker wrote them. */
  private static final class Watcher implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final long[] lastArrival = new long[PARTITIONS];
    private final int[] worker = new int[PARTITIONS];
    private final long[] longest = new long[PARTITIONS];
    private final boolean[] moved = new boolean[PARTITIONS];

    Watcher(String bootstrap, String topic) {
      consumer = GroupScalingBenchmark.readCommitted(bootstrap, topic, PARTITIONS,
          Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5));
      Arrays.fill(lastArrival, -1);
      Arrays.fill(worker, -1);
    }

    /** Waits until every partition's output arrives, from {@code count} different workers. */
    void awaitWorkers(int count, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (Arrays.stream(lastArrival).anyMatch(t -> t < 0) || Arrays.stream(worker).distinct().count() < count) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the output of " + count + " workers did not arrive within " + timeout);
        }
        poll();
      }
    }

    /** Starts a new window: longest gaps and moves are counted from now on. */
    void reset() {
      long now = System.nanoTime();
      Arrays.fill(longest, 0);
      Arrays.fill(moved, false);
      Arrays.fill(lastArrival, now); // a partition silent from the window's start counts from there
    }

    void watch(Duration d) {
      long end = System.nanoTime() + d.toNanos();
      while (System.nanoTime() < end) {
        poll();
      }
      long now = System.nanoTime();
      for (int p = 0; p < PARTITIONS; p++) { // a partition silent at the window's end
        longest[p] = Math.max(longest[p], now - lastArrival[p]);
      }
    }

    private void poll() {
      var records = consumer.poll(Duration.ofMillis(5));
      long now = System.nanoTime();
      boolean[] seen = new boolean[PARTITIONS];
      for (ConsumerRecord<byte[], byte[]> r : records) {
        int p = r.value()[0];
        int w = r.value()[1];
        if (worker[p] >= 0 && worker[p] != w) {
          moved[p] = true;
        }
        worker[p] = w;
        seen[p] = true;
      }
      for (int p = 0; p < PARTITIONS; p++) {
        if (seen[p]) {
          if (lastArrival[p] >= 0) {
            longest[p] = Math.max(longest[p], now - lastArrival[p]);
          }
          lastArrival[p] = now;
        }
      }
    }

    /** The longest gap, in ms, of the partitions that moved ({@code movedOnes}) or stayed; -1 if there are none. */
    long longestGap(boolean movedOnes) {
      long max = -1;
      for (int p = 0; p < PARTITIONS; p++) {
        if (moved[p] == movedOnes) {
          max = Math.max(max, longest[p] / 1_000_000);
        }
      }
      return max;
    }

    int moved() {
      int n = 0;
      for (boolean m : moved) {
        n += m ? 1 : 0;
      }
      return n;
    }

    @Override
    public void close() {
      consumer.close();
    }
  }
}
