package dev.twophase.benchmarks.jdbc;

import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
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
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Rows per second into PostgreSQL and MariaDB through the JDBC participant under a coordinator,
 * against a hand-written JDBC loop doing the same durable work, measured side by side in one run:
 * the two alternate checkpoint by checkpoint (A B B A ...) for several rounds, so that both see
 * the same moments of the disk, and each round gives one ratio. Prints the median ratio with its
 * range.
 *
 * <ul>
 *   <li>{@code twophase}: rows through {@code Output.write} (the participant's batch insert, 1000
 *       rows per JDBC batch), then {@code checkpoint().awaitCommitted()}: marker row, prepare, the
 *       decision appended and synced to a FileStateLog, commit on the committer thread, completion
 *       mark.
 *   <li>{@code raw}: a pooled connection, the same rows in the same JDBC batches, the same prepare
 *       (PostgreSQL {@code PREPARE TRANSACTION}, MariaDB {@code XA END} and {@code XA PREPARE}), a
 *       300-byte decision record written to a pre-allocated file and {@code force}d (fdatasync), the same commit ({@code
 *       COMMIT PREPARED}, {@code XA COMMIT}) on the same session. No marker row: the raw loop could
 *       not tell a lost decision from a repeat after a crash.
 * </ul>
 *
 * <p>Both servers durable ({@code fsync}, {@code synchronous_commit},
 * {@code innodb_flush_log_at_trx_commit=1}). Run as {@code docs/benchmarks.md} shows (options
 * {@code -Dbench.rounds=7}, {@code -Dbench.turnMillis=1500}, {@code -Dbench.warmupMillis=10000},
 * {@code -Dbench.sizes=1,100,10000}, {@code -Dbench.dbs=pg,maria}).
 */
public final class JdbcRowsBenchmark {

  private static final int ROUNDS = Integer.getInteger("bench.rounds", 7);
  private static final long TURN_NANOS = Long.getLong("bench.turnMillis", 1500) * 1_000_000;
  /** Warm-up per size before the first round, in rounds of half a second of each variant. */
  private static final long WARMUP_NANOS = Long.getLong("bench.warmupMillis", 10_000) * 1_000_000;
  private static final String PAYLOAD = "x".repeat(80);
  /** The raw loop's decision file, pre-allocated and reused in a circle. */
  private static final long DECISION_FILE_BYTES = 16L << 20;

  /** One way of writing a checkpoint's rows durably. */
  interface Sink extends AutoCloseable {
    void batch(long firstRow, int rows) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String s : System.getProperty("bench.sizes", "1,100,10000").split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    List<String> dbs = List.of(System.getProperty("bench.dbs", "pg,maria").split(","));
    Path dir = Files.createTempDirectory(Path.of("target"), "jdbc-bench");
    List<String> summary = new ArrayList<>();
    for (String db : dbs) {
      DataSource plain = db.equals("pg") ? PostgresServer.shared().dataSource() : MariaDbServer.shared().dataSource();
      try (SimplePool pool = new SimplePool(plain)) {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
          s.execute("DROP TABLE IF EXISTS bench_rows");
          s.execute("CREATE TABLE bench_rows (n BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)");
        }
        for (int size : sizes) {
          summary.add(run(db, size, pool, dir.resolve(db + "-" + size)));
          try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute(db.equals("pg") ? "TRUNCATE bench_rows" : "TRUNCATE TABLE bench_rows");
          }
        }
      }
    }
    System.out.println();
    System.out.println("[jdbc-rows] summary (twophase / raw, median of " + ROUNDS + " interleaved rounds, range):");
    summary.forEach(System.out::println);
    System.exit(0); // the servers stop in their shutdown hook
  }

  private static String run(String db, int size, DataSource pool, Path dir) throws Exception {
    Files.createDirectories(dir);
    List<Double> twophaseRates = new ArrayList<>();
    List<Double> rawRates = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    try (Sink twophase = new TwophaseSink(pool, dir.resolve("log"), db + size);
        Sink raw = new RawSink(pool, db.equals("pg"), dir.resolve("decisions"))) {
      long[] next = {0};
      for (long warmed = 0; warmed < WARMUP_NANOS; warmed += 1_000_000_000L) {
        round(twophase, raw, size, next, 500_000_000L);
      }
      for (int round = 0; round < ROUNDS; round++) {
        double[] rates = round(twophase, raw, size, next, TURN_NANOS);
        twophaseRates.add(rates[0]);
        rawRates.add(rates[1]);
        ratios.add(rates[0] / rates[1]);
        System.out.printf(Locale.ROOT, "[jdbc-rows] %s rows/checkpoint=%d round %d: twophase %.0f rows/s, raw %.0f rows/s, ratio %.3f%n",
            db, size, round + 1, rates[0], rates[1], rates[0] / rates[1]);
      }
    }
    return String.format(Locale.ROOT, "  %-5s %6d rows/checkpoint: twophase %9.0f rows/s, raw %9.0f rows/s, ratio %.2f (%.2f..%.2f)",
        db, size, median(twophaseRates), median(rawRates), median(ratios),
        Collections.min(ratios), Collections.max(ratios));
  }

  /**
   * One round: single checkpoints of the two sinks in turn (A B B A ...) for about {@code nanos}
   * in all, each checkpoint timed alone; returns both sinks' rows per second. Interleaving single
   * checkpoints makes both see the same moments of a disk whose sync rate drifts.
   */
  private static double[] round(Sink a, Sink b, int size, long[] next, long nanos) throws Exception {
    long[] time = new long[2];
    long[] rows = new long[2];
    long start = System.nanoTime();
    for (int i = 0; System.nanoTime() - start < nanos || i % 4 != 0; i++) {
      int which = (i % 4 == 0 || i % 4 == 3) ? 0 : 1;
      Sink sink = which == 0 ? a : b;
      long t0 = System.nanoTime();
      sink.batch(next[0], size);
      time[which] += System.nanoTime() - t0;
      rows[which] += size;
      next[0] += size;
    }
    return new double[] {rows[0] * 1e9 / time[0], rows[1] * 1e9 / time[1]};
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static final class TwophaseSink implements Sink {
    private final FileStateLog log;
    private final Coordinator coordinator;
    private final Output<Long> output;

    TwophaseSink(DataSource pool, Path logDir, String id) {
      log = FileStateLog.open(logDir);
      JdbcParticipant<Long> rows = JdbcParticipant.builder(pool)
          .<Long>insert("INSERT INTO bench_rows (n, payload) VALUES (?, ?)", (s, n) -> {
            s.setLong(1, n);
            s.setString(2, PAYLOAD);
          })
          .build();
      coordinator = Coordinator.builder("bench" + id, log).participant("rows", rows).build();
      output = coordinator.output(rows);
    }

    @Override
    public void batch(long firstRow, int rows) {
      for (long n = firstRow; n < firstRow + rows; n++) {
        output.write(n);
      }
      coordinator.checkpoint().awaitCommitted(Duration.ofMinutes(1));
    }

    @Override
    public void close() {
      try {
        coordinator.close();
      } finally {
        log.close();
      }
    }
  }

  static final class RawSink implements Sink {
    private final DataSource pool;
    private final boolean postgres;
    private final FileChannel decisions;
    private final ByteBuffer decision = ByteBuffer.allocate(300);
    private long sequence;
    private long position;

    RawSink(DataSource pool, boolean postgres, Path decisionFile) throws Exception {
      this.pool = pool;
      this.postgres = postgres;
      Files.createDirectories(decisionFile.getParent());
      decisions = FileChannel.open(decisionFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      // Written ahead with zeros and synced, as the FileStateLog pre-allocates its segments: a
      // record then overwrites allocated blocks, and its fdatasync does not also sync a new size.
      ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
      for (long at = 0; at < DECISION_FILE_BYTES; at += zeros.capacity()) {
        zeros.clear();
        decisions.write(zeros, at);
      }
      decisions.force(true);
    }

    @Override
    public void batch(long firstRow, int rows) throws Exception {
      String gid = "raw-" + ProcessHandle.current().pid() + "-" + sequence++;
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        if (postgres) {
          c.setAutoCommit(false);
        } else {
          s.execute("XA START '" + gid + "'");
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO bench_rows (n, payload) VALUES (?, ?)")) {
          int pending = 0;
          for (long n = firstRow; n < firstRow + rows; n++) {
            insert.setLong(1, n);
            insert.setString(2, PAYLOAD);
            insert.addBatch();
            if (++pending == 1000) {
              insert.executeBatch();
              pending = 0;
            }
          }
          if (pending > 0) {
            insert.executeBatch();
          }
        }
        if (postgres) {
          s.execute("PREPARE TRANSACTION '" + gid + "'");
          c.setAutoCommit(true);
        } else {
          s.execute("XA END '" + gid + "'");
          s.execute("XA PREPARE '" + gid + "'");
        }
        decision.clear();
        decision.put(0, gid.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        decisions.write(decision, position);
        position = (position + decision.capacity()) % DECISION_FILE_BYTES;
        decisions.force(false);
        s.execute((postgres ? "COMMIT PREPARED '" : "XA COMMIT '") + gid + "'");
      }
    }

    @Override
    public void close() throws Exception {
      decisions.close();
    }
  }
}
