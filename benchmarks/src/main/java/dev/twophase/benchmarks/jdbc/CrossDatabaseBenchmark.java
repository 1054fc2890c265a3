package dev.twophase.benchmarks.jdbc;

import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Atomikos;
import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Floor;
import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Narayana;
import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Twophase;
import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Variant;
import dev.twophase.benchmarks.jdbc.CrossDatabaseVariants.Worker;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * An atomic commit across PostgreSQL and MariaDB together, 10 rows into each per transaction, both
 * durable, at 1 and 16 threads: transactions per second and client CPU per transaction, all
 * variants taking turns in each round.
 *
 * <ul>
 *   <li>{@code twophase-1}: per thread a coordinator (all on one FileStateLog) with a JDBC
 *       participant per database; the rows through Output; one checkpoint per transaction, waited
 *       for until committed.
 *   <li>{@code twophase-100}: the same, one checkpoint per 100 transactions; the participants
 *       batch rows as they do by default (1000 rows), across transactions
 *       ({@code -Dbench.batchRows=10}: each transaction's rows on their own).
 *   <li>{@code floor}: by hand, per thread: the rows, PREPARE TRANSACTION and XA END/PREPARE, one
 *       300-byte record written to a pre-allocated file and forced, COMMIT PREPARED and XA COMMIT.
 *   <li>{@code narayana}: Narayana's TransactionManager (its default file store), the drivers'
 *       XAResources enlisted by hand, commit.
 *   <li>{@code atomikos}: Atomikos's UserTransactionManager with an AtomikosDataSourceBean per
 *       database (which registers the resources for recovery), commit.
 * </ul>
 *
 * Options: {@code -Dbench.rounds=5 -Dbench.turnMillis=3000 -Dbench.warmupMillis=15000
 * -Dbench.batchRows=0 -Dbench.threads=1,16
 * -Dbench.variants=twophase-1,twophase-100,floor,narayana,atomikos}. The variants are in {@link
 * CrossDatabaseVariants}.
 */
public final class CrossDatabaseBenchmark {

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
  private static final long TURN_NANOS = Long.getLong("bench.turnMillis", 3000) * 1_000_000;
  /**
   * Warm-up per variant before the first round, in turns of a second: until the JIT compiler is
   * done with a variant's path, its compiler threads are most of the process's CPU time per
   * transaction.
   */
  private static final long WARMUP_NANOS = Long.getLong("bench.warmupMillis", 15_000) * 1_000_000;

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory(Path.of("target"), "xa-bench").toAbsolutePath();
    System.setProperty("org.jboss.logging.provider", "slf4j"); // Narayana logs nowhere otherwise
    System.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", dir.resolve("narayana").toString());
    System.setProperty("com.arjuna.ats.arjuna.objectstore.objectStoreDir", dir.resolve("narayana").toString());
    System.setProperty("CoreEnvironmentBean.nodeIdentifier", "1");
    System.setProperty("com.atomikos.icatch.log_base_dir", dir.resolve("atomikos").toString());
    System.setProperty("com.atomikos.icatch.output_dir", dir.resolve("atomikos").toString());
    System.setProperty("com.atomikos.icatch.max_actives", "-1");

    java.util.logging.Logger.getLogger("com.atomikos").setLevel(java.util.logging.Level.WARNING);
    PostgresServer pg = PostgresServer.shared();
    MariaDbServer maria = MariaDbServer.shared();
    for (DataSource ds : List.of(pg.dataSource(), maria.dataSource())) {
      try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS xa_rows");
        s.execute("CREATE TABLE xa_rows (n BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)");
      }
    }
    List<Integer> threadCounts = new ArrayList<>();
    for (String t : System.getProperty("bench.threads", "1,16").split(",")) {
      threadCounts.add(Integer.parseInt(t.trim()));
    }
    List<String> names = List.of(System.getProperty("bench.variants",
        "twophase-1,twophase-100,floor,narayana,atomikos").split(","));
    int maxThreads = Collections.max(threadCounts);

    Map<String, Variant> variants = new LinkedHashMap<>();
    for (String name : names) {
      variants.put(name, create(name, dir, pg, maria, maxThreads));
    }
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    AtomicLong next = new AtomicLong();
    for (int threads : threadCounts) {
      Map<String, Crew> crews = new LinkedHashMap<>();
      for (String name : names) {
        crews.put(name, crew(variants.get(name), threads, next));
      }
      for (long warmed = 0; warmed < WARMUP_NANOS; warmed += 1_000_000_000L) {
        for (Crew crew : crews.values()) {
          turn(crew, 1_000_000_000L);
        }
      }
      for (int round = 0; round < ROUNDS; round++) {
        List<String> order = new ArrayList<>(names);
        if (round % 2 == 1) {
          Collections.reverse(order);
        }
        for (String name : order) {
          double[] r = turn(crews.get(name), TURN_NANOS);
          results.computeIfAbsent(name + " x" + threads, k -> new ArrayList<>()).add(r);
          System.out.printf(Locale.ROOT, "[xa] %-13s threads=%2d round %d: %8.0f tx/s, %6.0f us CPU/tx%n",
              name, threads, round + 1, r[0], r[1]);
        }
      }
      for (Crew crew : crews.values()) {
        crew.close();
      }
    }
    for (Variant v : variants.values()) {
      v.close();
    }
    System.out.println();
    System.out.println("[xa] summary, median of " + ROUNDS + " interleaved rounds (range):");
    for (int threads : threadCounts) {
      double floor = medianOf(results.get("floor x" + threads), 0);
      double narayana = medianOf(results.get("narayana x" + threads), 0);
      for (String name : names) {
        List<double[]> rs = results.get(name + " x" + threads);
        double tps = medianOf(rs, 0);
        System.out.printf(Locale.ROOT,
            "  %-13s threads=%2d: %8.0f tx/s (%.0f..%.0f), %5.0f us CPU/tx, %5.2fx floor, %6.2fx narayana%n",
            name, threads, tps, minOf(rs, 0), maxOf(rs, 0), medianOf(rs, 1),
            Double.isNaN(floor) ? Double.NaN : tps / floor, Double.isNaN(narayana) ? Double.NaN : tps / narayana);
      }
    }
    System.out.println("[xa] per-round ratios, median (range):");
    for (int threads : threadCounts) {
      for (String[] pair : new String[][] {{"twophase-1", "floor"}, {"twophase-100", "narayana"},
          {"twophase-1", "narayana"}}) {
        List<double[]> a = results.get(pair[0] + " x" + threads);
        List<double[]> b = results.get(pair[1] + " x" + threads);
        if (a == null || b == null) {
          continue;
        }
        List<double[]> ratios = new ArrayList<>();
        for (int round = 0; round < a.size(); round++) {
          ratios.add(new double[] {a.get(round)[0] / b.get(round)[0]});
        }
        System.out.printf(Locale.ROOT, "  %-13s / %-9s threads=%2d: %5.2f (%.2f..%.2f)%n", pair[0], pair[1],
            threads, medianOf(ratios, 0), minOf(ratios, 0), maxOf(ratios, 0));
      }
    }
    System.exit(0);
  }

  /**
   * The variant's crew: each transaction of {@link CrossDatabaseVariants#ROWS} rows numbered from
   * {@code nextRow}.
   */
  private static Crew crew(Variant variant, int threads, AtomicLong nextRow) throws Exception {
    return new Crew("bench", threads, t -> {
      Worker w = variant.worker(t);
      return new Crew.Worker() {
        @Override
        public void transaction() throws Exception {
          w.transaction(nextRow.getAndAdd(CrossDatabaseVariants.ROWS));
        }

        @Override
        public void close() throws Exception {
          w.close();
        }
      };
    });
  }

  /** One turn of about {@code nanos}: {tx/s, client CPU us per tx}. */
  private static double[] turn(Crew crew, long nanos) throws Exception {
    long[] r = crew.turn(nanos / 1_000_000);
    return new double[] {r[0] * 1e9 / r[1], r[2] / 1e3 / Math.max(1, r[0])};
  }

  private static Variant create(String name, Path dir, PostgresServer pg, MariaDbServer maria, int maxThreads)
      throws Exception {
    return switch (name) {
      case "twophase-1" -> new Twophase(dir.resolve(name), pg, maria, 1);
      case "twophase-100" -> new Twophase(dir.resolve(name), pg, maria, 100);
      case "floor" -> new Floor(dir.resolve(name), pg, maria);
      case "narayana" -> new Narayana(pg, maria);
      case "atomikos" -> new Atomikos(pg, maria, maxThreads);
      default -> throw new IllegalArgumentException("unknown variant " + name);
    };
  }

  // ------------------------------------------------------------------ statistics

  static double medianOf(List<double[]> rs, int i) {
    if (rs == null) {
      return Double.NaN;
    }
    List<Double> v = new ArrayList<>();
    for (double[] r : rs) {
      v.add(r[i]);
    }
    return JdbcRowsBenchmark.median(v);
  }

  static double minOf(List<double[]> rs, int i) {
    return rs.stream().mapToDouble(r -> r[i]).min().orElse(Double.NaN);
  }

  static double maxOf(List<double[]> rs, int i) {
    return rs.stream().mapToDouble(r -> r[i]).max().orElse(Double.NaN);
  }
}
