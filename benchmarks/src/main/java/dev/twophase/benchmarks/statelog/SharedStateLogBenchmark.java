package dev.twophase.benchmarks.statelog;

import dev.twophase.StateLog;
import dev.twophase.benchmarks.statelog.TimedCrew.Probe;
import dev.twophase.benchmarks.statelog.TimedCrew.Turn;
import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The shared state logs (JDBC on PostgreSQL and MariaDB, Kafka) side by side with {@code
 * FileStateLog}, and each against a hand-written loop doing the same durable writes to the same
 * server, in one run. Per thread count, the rows take turns, their order reversed every round,
 * each turn timed as a whole; each thread drives a coordinator of its own.
 *
 * <ul>
 *   <li>{@code <store>-log}: {@code open(coordinatorId)}, then {@code appendState(++id, 200 bytes)}
 *       in a loop, through the {@link StateLog} SPI.
 *   <li>{@code pg-floor}, {@code maria-floor}: by hand, per thread a connection, a conditional
 *       {@code UPDATE ... WHERE coordinator_id = ? AND epoch = ?} and a commit per append
 *       ({@link JdbcFloors}); {@code -floor-batched}: the threads' updates sent by one writer as a
 *       JDBC batch and committed once ({@link JdbcBatchedFloor}), a group commit by hand.
 *   <li>{@code kafka-floor}: by hand, per thread a transactional producer: begin, one record into
 *       a compacted topic, commit ({@link KafkaFloor}).
 *   <li>{@code file-fsync}: per thread its own file, 220 bytes and {@code fdatasync}: the local
 *       disk's limit without group commit.
 *   <li>{@code ckpt-<store>}: checkpoints of real coordinators (a file and a Kafka participant) on
 *       that store's log ({@link CheckpointVariant}).
 * </ul>
 *
 * Options (defaults): {@code -Dbench.stores=file,pg,maria,kafka -Dbench.threads=1,64
 * -Dbench.checkpointThreads=1,16 -Dbench.rounds=3 -Dbench.turnMillis=3000
 * -Dbench.warmupMillis=2000 -Dbench.kafkaPartitions=8}. Prints each turn, then the summary
 * table, the per-round ratios and the target lines.
 */
public final class SharedStateLogBenchmark {

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
  private static final long TURN_MILLIS = Long.getLong("bench.turnMillis", 3000);
  /** Untimed turns of a second per row before the first round of each thread count. */
  private static final long WARMUP_MILLIS = Long.getLong("bench.warmupMillis", 2000);
  private static final double TARGET = 0.8;
  private static final List<String> SHARED = List.of("pg", "maria", "kafka");

  private SharedStateLogBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> storeNames = List.of(System.getProperty("bench.stores", "file,pg,maria,kafka").split(","));
    List<Integer> appendThreads = ints(System.getProperty("bench.threads", "1,64"));
    List<Integer> checkpointThreads = ints(System.getProperty("bench.checkpointThreads", "1,16"));
    int partitions = Integer.getInteger("bench.kafkaPartitions", 8);
    Files.createDirectories(Path.of("target"));
    Path dir = Files.createTempDirectory(Path.of("target"), "statelog-bench").toAbsolutePath();
    System.out.printf("[statelog] %s, %d CPUs, load average %.2f; %d rounds of %d ms turns; data in %s%n",
        Instant.now(), Runtime.getRuntime().availableProcessors(),
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        ROUNDS, TURN_MILLIS, dir);
    Results results = new Results(ROUNDS);
    try (Stores stores = Stores.start(dir, storeNames, partitions)) {
      for (int threads : appendThreads) {
        runPhase("appends", threads, appendRows(stores, threads), results);
      }
      for (int threads : checkpointThreads) {
        Map<String, Variant> rows = new LinkedHashMap<>();
        for (Map.Entry<String, StateLog> log : stores.logs.entrySet()) {
          rows.put("ckpt-" + log.getKey(), new CheckpointVariant(log.getValue(), "c" + threads,
              dir.resolve("out-" + log.getKey() + "-" + threads), stores.broker.bootstrapServers(),
              Stores.OUTPUT_TOPIC));
        }
        runPhase("checkpoints", threads, rows, results);
      }
      System.out.printf("%n[statelog] %s, load average %.2f%n", Instant.now(),
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      summary(results, stores, appendThreads, checkpointThreads);
    }
    System.exit(0);
  }

  /** The append rows of one thread count, for the stores of the run. */
  private static Map<String, Variant> appendRows(Stores stores, int threads) throws Exception {
    String prefix = "a" + threads;
    Map<String, Variant> rows = new LinkedHashMap<>();
    if (stores.logs.containsKey("file")) {
      rows.put("file-log", AppendVariants.logAppends(stores.logs.get("file"), prefix));
      rows.put("file-fsync", AppendVariants.fileFsync(stores.dir.resolve("fsync-" + threads)));
    }
    for (Map.Entry<String, DataSource> db : stores.databases.entrySet()) {
      String name = db.getKey();
      if (stores.logs.containsKey(name)) {
        rows.put(name + "-log", AppendVariants.logAppends(stores.logs.get(name), prefix));
      }
      rows.put(name + "-floor", JdbcFloors.perThread(db.getValue(), prefix));
      if (threads > 1) {
        rows.put(name + "-floor-batched", new JdbcBatchedFloor(db.getValue(), prefix + "b"));
      }
    }
    if (stores.logs.containsKey("kafka")) {
      rows.put("kafka-log", AppendVariants.logAppends(stores.logs.get("kafka"), prefix));
    }
    rows.put("kafka-floor", KafkaFloor.perThread(stores.clientSettings, Stores.FLOOR_TOPIC, prefix));
    return rows;
  }

  /** The rows' crews at {@code threads}: warm-up, then the interleaved rounds. */
  private static void runPhase(String phase, int threads, Map<String, Variant> variants, Results results)
      throws Exception {
    System.out.printf("[statelog] %s at %d threads: %s%n", phase, threads, variants.keySet());
    Map<String, TimedCrew> crews = new LinkedHashMap<>();
    StringBuilder setUp = new StringBuilder();
    for (Map.Entry<String, Variant> v : variants.entrySet()) {
      long t0 = System.nanoTime();
      try {
        crews.put(v.getKey(), new TimedCrew(v.getKey() + "-x" + threads, threads, v.getValue()));
      } catch (Exception e) {
        failed(results, v.getKey(), threads, "start", e);
      }
      setUp.append(String.format(Locale.ROOT, " %s %.1f s;", v.getKey(), (System.nanoTime() - t0) / 1e9));
    }
    System.out.printf("[statelog] set up (threads, coordinators opened):%s%n", setUp);
    for (long warmed = 0; warmed < WARMUP_MILLIS; warmed += 1000) {
      for (String name : new ArrayList<>(crews.keySet())) {
        try {
          crews.get(name).turn(1000);
        } catch (Exception e) {
          failed(results, name, threads, "warm-up", e);
          closeQuietly(crews.remove(name), name, threads);
        }
      }
    }
    for (int round = 0; round < ROUNDS; round++) {
      List<String> order = new ArrayList<>(crews.keySet());
      if (round % 2 == 1) {
        Collections.reverse(order);
      }
      for (String name : order) {
        try {
          Probe probe = variants.get(name).probe();
          if (probe != null) {
            probe.start();
          }
          Turn t = crews.get(name).turn(TURN_MILLIS);
          String note = probe == null ? "" : "; " + probe.end(t.elapsedNanos());
          results.add(name, threads, round, t);
          Latencies l = t.latencies();
          System.out.printf(Locale.ROOT, "[statelog] %-19s x%-2d round %d: %,9.0f ops/s, p50 %7.0f us, p99 %7.0f us,"
              + " %6.1f us CPU/op%s%n", name, threads, round + 1, t.rate(), l.percentileMicros(50),
              l.percentileMicros(99), t.cpuMicrosPerOp(), note);
        } catch (Exception e) {
          failed(results, name, threads, "round " + (round + 1), e);
          closeQuietly(crews.remove(name), name, threads);
        }
      }
    }
    for (Map.Entry<String, TimedCrew> crew : crews.entrySet()) {
      closeQuietly(crew.getValue(), crew.getKey(), threads);
    }
    for (Map.Entry<String, Variant> v : variants.entrySet()) {
      try {
        v.getValue().close();
      } catch (Exception e) {
        System.out.printf("[statelog] %s x%d: closing failed: %s%n", v.getKey(), threads, e);
      }
    }
  }

  /** Closes a crew (a broken one closes nothing: its threads are left, daemons). */
  private static void closeQuietly(TimedCrew crew, String name, int threads) {
    try {
      crew.close();
    } catch (Exception e) {
      System.out.printf("[statelog] %s x%d: closing failed: %s%n", name, threads, e);
    }
  }

  private static void failed(Results results, String name, int threads, String when, Exception e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String why = when + ": " + e.getMessage() + (root == e ? "" : " (" + root + ")");
    System.out.printf("[statelog] %s x%d FAILED in %s%n", name, threads, why);
    results.fail(name, threads, why);
  }

  private static void summary(Results results, Stores stores, List<Integer> appendThreads,
      List<Integer> checkpointThreads) {
    System.out.printf("[statelog] summary, median of %d interleaved rounds of %d ms (range); latency percentiles"
        + " over every timed operation of the row; CPU: this process's (the Kafka broker's included, not the"
        + " databases')%n", ROUNDS, TURN_MILLIS);
    results.printTable();
    System.out.println("[statelog] per-round ratios, median (range):");
    for (int threads : appendThreads) {
      ratio(results, "file-log", "file-fsync", threads);
      for (String s : SHARED) {
        ratio(results, s + "-log", s + "-floor", threads);
        ratio(results, s + "-log", s + "-floor-batched", threads);
        ratio(results, s + "-log", "file-log", threads);
      }
    }
    for (int threads : checkpointThreads) {
      for (String s : SHARED) {
        ratio(results, "ckpt-" + s, "ckpt-file", threads);
      }
    }
    int top = Collections.max(appendThreads);
    System.out.println("[statelog] target: at " + top + " coordinators each shared log appends (decides) at least "
        + TARGET + " x as often as the hand-written loop on the same server:");
    for (String s : SHARED) {
      if (!stores.logs.containsKey(s)) {
        System.out.printf("  log %s: not measured (%s)%n", s,
            stores.unavailable.getOrDefault(s, "not in -Dbench.stores"));
        continue;
      }
      double log = results.medianRate(s + "-log", top);
      double floor = results.medianRate(s + "-floor", top);
      double[] r = results.roundRatios(s + "-log", top, s + "-floor", top);
      if (r == null) {
        System.out.printf("  log %s at %d coordinators: no ratio (a row failed, see above)%n", s, top);
        continue;
      }
      System.out.printf(Locale.ROOT, "  log %s at %d coordinators: %,.0f appends/s = %.2f x the hand-written loop"
          + " (target %.1f): %s; per round %.2f (%.2f-%.2f); ratio of the medians %.2f (loop %,.0f appends/s)%n",
          s, top, log, r[0], TARGET, r[0] >= TARGET ? "met" : "NOT met", r[0], r[1], r[2], log / floor, floor);
    }
  }

  private static void ratio(Results results, String a, String b, int threads) {
    double[] r = results.roundRatios(a, threads, b, threads);
    if (r != null) {
      System.out.printf(Locale.ROOT, "  %-19s / %-19s x%-2d: %5.2f (%.2f-%.2f)%n", a, b, threads, r[0], r[1], r[2]);
    }
  }

  private static List<Integer> ints(String csv) {
    return Arrays.stream(csv.split(",")).map(String::trim).map(Integer::valueOf).toList();
  }
}
