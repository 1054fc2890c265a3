package dev.twophase.benchmarks.jdbc;

import com.atomikos.icatch.jta.UserTransactionManager;
import com.atomikos.jdbc.AtomikosDataSourceBean;
import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

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
 * -Dbench.variants=twophase-1,twophase-100,floor,narayana,atomikos}.
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
  private static final int ROWS = 10;
  /**
   * The participants' JDBC batch: 0 (the default) keeps the participant's own (1000 rows), with
   * which {@code twophase-100} sends the rows of several transactions together; 10 sends each
   * transaction's rows on their own, as the other variants do.
   */
  private static final int BATCH_ROWS = Integer.getInteger("bench.batchRows", 0);
  private static final String PAYLOAD = "y".repeat(80);
  private static final String INSERT = "INSERT INTO xa_rows (n, payload) VALUES (?, ?)";

  /** One thread's way of running transactions. */
  interface Worker extends AutoCloseable {
    void transaction(long n) throws Exception;
  }

  /** A variant: makes a worker per thread. */
  interface Variant extends AutoCloseable {
    Worker worker(int thread) throws Exception;
  }

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

  /** The variant's crew: each transaction of {@link #ROWS} rows numbered from {@code nextRow}. */
  private static Crew crew(Variant variant, int threads, AtomicLong nextRow) throws Exception {
    return new Crew("bench", threads, t -> {
      Worker w = variant.worker(t);
      return new Crew.Worker() {
        @Override
        public void transaction() throws Exception {
          w.transaction(nextRow.getAndAdd(ROWS));
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

  static void insertRows(Connection c, long n) throws Exception {
    try (PreparedStatement s = c.prepareStatement(INSERT)) {
      for (int i = 0; i < ROWS; i++) {
        s.setLong(1, n + i);
        s.setString(2, PAYLOAD);
        s.addBatch();
      }
      s.executeBatch();
    }
  }

  static PGXADataSource pgXa(PostgresServer pg) {
    PGXADataSource xa = new PGXADataSource();
    xa.setUrl(pg.jdbcUrl());
    xa.setUser(PostgresServer.USER);
    return xa;
  }

  static MariaDbDataSource mariaXa(MariaDbServer maria) throws Exception {
    return new MariaDbDataSource(maria.jdbcUrl());
  }

  // ------------------------------------------------------------------ variants

  static final class Twophase implements Variant {
    private final FileStateLog log;
    private final SimplePool pgPool;
    private final SimplePool mariaPool;
    private final int perCheckpoint;

    Twophase(Path dir, PostgresServer pg, MariaDbServer maria, int perCheckpoint) {
      this.log = FileStateLog.open(dir);
      this.pgPool = new SimplePool(pg.dataSource());
      this.mariaPool = new SimplePool(maria.dataSource());
      this.perCheckpoint = perCheckpoint;
    }

    /**
     * A coordinator per thread, built on the worker's thread at its first transaction (the thread
     * becomes its application thread), closed at the end of the run.
     */
    @Override
    public Worker worker(int thread) {
      JdbcParticipant<Long> pgRows = participant(pgPool);
      JdbcParticipant<Long> mariaRows = participant(mariaPool);
      String id = "xa" + perCheckpoint + "-" + thread + "-" + System.nanoTime();
      return new TwophaseWorker(() -> Coordinator.builder(id, log)
          .participant("pg", pgRows).participant("maria", mariaRows).build(), pgRows, mariaRows, perCheckpoint);
    }

    private static JdbcParticipant<Long> participant(DataSource pool) {
      var builder = JdbcParticipant.builder(pool).<Long>insert(INSERT, (s, n) -> {
        s.setLong(1, n);
        s.setString(2, PAYLOAD);
      });
      return (BATCH_ROWS > 0 ? builder.batchSize(BATCH_ROWS) : builder).build();
    }

    @Override
    public void close() throws Exception {
      log.close();
      pgPool.close();
      mariaPool.close();
    }
  }

  static final class TwophaseWorker implements Worker {
    private final java.util.function.Supplier<Coordinator> build;
    private Coordinator coordinator;
    private final JdbcParticipant<Long> pgRows;
    private final JdbcParticipant<Long> mariaRows;
    private final int perCheckpoint;
    private Output<Long> pgOut;
    private Output<Long> mariaOut;
    private int sinceCheckpoint;

    TwophaseWorker(java.util.function.Supplier<Coordinator> build, JdbcParticipant<Long> pgRows,
        JdbcParticipant<Long> mariaRows, int perCheckpoint) {
      this.build = build;
      this.pgRows = pgRows;
      this.mariaRows = mariaRows;
      this.perCheckpoint = perCheckpoint;
    }

    @Override
    public void transaction(long n) {
      if (coordinator == null) { // on the worker's thread, which becomes the application thread
        coordinator = build.get();
        pgOut = coordinator.output(pgRows);
        mariaOut = coordinator.output(mariaRows);
      }
      for (int i = 0; i < ROWS; i++) {
        pgOut.write(n + i);
        mariaOut.write(n + i);
      }
      if (++sinceCheckpoint == perCheckpoint) {
        sinceCheckpoint = 0;
        coordinator.checkpoint().awaitCommitted(Duration.ofMinutes(1));
      }
    }

    /** At the end of the run: the coordinator (its open transaction aborted) and its participants. */
    @Override
    public void close() {
      if (coordinator != null) {
        coordinator.close();
      }
    }
  }

  static final class Floor implements Variant {
    private final Path dir;
    private final PostgresServer pg;
    private final MariaDbServer maria;

    Floor(Path dir, PostgresServer pg, MariaDbServer maria) throws Exception {
      this.dir = Files.createDirectories(dir);
      this.pg = pg;
      this.maria = maria;
    }

    @Override
    public Worker worker(int thread) throws Exception {
      Connection p = pg.dataSource().getConnection();
      Connection m = maria.dataSource().getConnection();
      FileChannel file = FileChannel.open(dir.resolve("decisions-" + thread),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      if (file.size() == 0) {
        ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
        for (long at = 0; at < (4 << 20); at += zeros.capacity()) {
          zeros.clear();
          file.write(zeros, at);
        }
        file.force(true);
      }
      ByteBuffer record = ByteBuffer.allocate(300);
      long[] position = {0};
      long[] seq = {0};
      String id = "floor-" + thread + "-" + System.nanoTime() + "-";
      return new Worker() {
        @Override
        public void transaction(long n) throws Exception {
          String gid = id + seq[0]++;
          try (Statement ps = p.createStatement(); Statement ms = m.createStatement()) {
            ms.execute("XA START '" + gid + "'");
            p.setAutoCommit(false);
            insertRows(p, n);
            insertRows(m, n);
            ps.execute("PREPARE TRANSACTION '" + gid + "'");
            p.setAutoCommit(true);
            ms.execute("XA END '" + gid + "'");
            ms.execute("XA PREPARE '" + gid + "'");
            record.clear();
            record.put(0, gid.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            file.write(record, position[0]);
            position[0] = (position[0] + 300) % (4 << 20);
            file.force(false);
            ps.execute("COMMIT PREPARED '" + gid + "'");
            ms.execute("XA COMMIT '" + gid + "'");
          }
        }

        @Override
        public void close() throws Exception {
          p.close();
          m.close();
          file.close();
        }
      };
    }

    @Override
    public void close() {}
  }

  static final class Narayana implements Variant {
    private final XADataSource pgXa;
    private final XADataSource mariaXa;
    private final TransactionManager tm;

    Narayana(PostgresServer pg, MariaDbServer maria) throws Exception {
      pgXa = pgXa(pg);
      mariaXa = mariaXa(maria);
      tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    @Override
    public Worker worker(int thread) throws Exception {
      XAConnection p = pgXa.getXAConnection();
      XAConnection m = mariaXa.getXAConnection();
      Connection pc = p.getConnection();
      Connection mc = m.getConnection();
      return new Worker() {
        @Override
        public void transaction(long n) throws Exception {
          tm.begin();
          Transaction tx = tm.getTransaction();
          tx.enlistResource(p.getXAResource());
          tx.enlistResource(m.getXAResource());
          insertRows(pc, n);
          insertRows(mc, n);
          tm.commit();
        }

        @Override
        public void close() throws Exception {
          pc.close();
          mc.close();
          p.close();
          m.close();
        }
      };
    }

    @Override
    public void close() {}
  }

  static final class Atomikos implements Variant {
    private final UserTransactionManager utm = new UserTransactionManager();
    private final AtomikosDataSourceBean pgBean = new AtomikosDataSourceBean();
    private final AtomikosDataSourceBean mariaBean = new AtomikosDataSourceBean();

    Atomikos(PostgresServer pg, MariaDbServer maria, int threads) throws Exception {
      utm.setForceShutdown(true);
      utm.init();
      pgBean.setUniqueResourceName("bench-pg");
      pgBean.setXaDataSource(pgXa(pg));
      pgBean.setMinPoolSize(threads + 2);
      pgBean.setMaxPoolSize(threads + 2);
      mariaBean.setUniqueResourceName("bench-maria");
      mariaBean.setXaDataSource(mariaXa(maria));
      mariaBean.setMinPoolSize(threads + 2);
      mariaBean.setMaxPoolSize(threads + 2);
      pgBean.init();
      mariaBean.init();
    }

    @Override
    public Worker worker(int thread) {
      return new Worker() {
        @Override
        public void transaction(long n) throws Exception {
          utm.begin();
          try (Connection p = pgBean.getConnection(); Connection m = mariaBean.getConnection()) {
            insertRows(p, n);
            insertRows(m, n);
          }
          utm.commit();
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {
      pgBean.close();
      mariaBean.close();
      utm.close();
    }
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
