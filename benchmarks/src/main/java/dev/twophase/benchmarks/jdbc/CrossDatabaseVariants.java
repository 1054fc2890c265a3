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
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.xa.PGXADataSource;

/**
 * The variants {@link CrossDatabaseBenchmark} compares: ways to commit one transaction of
 * {@link #ROWS} rows into PostgreSQL and {@link #ROWS} into MariaDB atomically, each making a
 * worker per thread.
 */
final class CrossDatabaseVariants {

  /** Rows into each database per transaction. */
  static final int ROWS = 10;
  /**
   * The participants' JDBC batch: 0 (the default) keeps the participant's own (1000 rows), with
   * which {@code twophase-100} sends the rows of several transactions together; 10 sends each
   * transaction's rows on their own, as the other variants do.
   */
  private static final int BATCH_ROWS = Integer.getInteger("bench.batchRows", 0);
  private static final String PAYLOAD = "y".repeat(80);
  private static final String INSERT = "INSERT INTO xa_rows (n, payload) VALUES (?, ?)";

  private CrossDatabaseVariants() {}

  /** One thread's way of running transactions. */
  interface Worker extends AutoCloseable {
    void transaction(long n) throws Exception;
  }

  /** A variant: makes a worker per thread. */
  interface Variant extends AutoCloseable {
    Worker worker(int thread) throws Exception;
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
}
