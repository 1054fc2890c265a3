package dev.twophase.benchmarks.jdbc;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.benchmarks.PhaseTimer;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.jdbc.servers.MariaDbServer;
import dev.twophase.jdbc.servers.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Where a checkpoint's time goes, for the rows benchmark's small checkpoints: a fault injector
 * that only notes the time at every named point of the coordinator and the participant, and
 * prints the mean time from each point to the next. Diagnostic; not a benchmark.
 */
public final class JdbcPhaseProbe {

  public static void main(String[] args) throws Exception {
    String db = System.getProperty("bench.db", "pg");
    int rows = Integer.getInteger("bench.rows", 1);
    int checkpoints = Integer.getInteger("bench.checkpoints", 300);
    List<DataSource> plains = new ArrayList<>();
    if (!db.equals("maria")) {
      plains.add(PostgresServer.shared().dataSource());
    }
    if (!db.equals("pg")) {
      plains.add(MariaDbServer.shared().dataSource());
    }
    Path dir = Files.createTempDirectory(Path.of("target"), "jdbc-probe");
    PhaseTimer timing = new PhaseTimer();
    try (FileStateLog log = FileStateLog.open(dir.resolve("log"))) {
      Coordinator.Builder builder = Coordinator.builder("probe" + System.nanoTime(), log)
          .config(CoordinatorConfig.custom().faultInjector(timing).build());
      List<JdbcParticipant<Long>> ps = new ArrayList<>();
      for (DataSource plain : plains) {
        SimplePool pool = new SimplePool(plain);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
          s.execute("CREATE TABLE IF NOT EXISTS probe_rows (n BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)");
        }
        JdbcParticipant<Long> p = JdbcParticipant.builder(pool).faultInjector(timing)
            .<Long>insert("INSERT INTO probe_rows (n, payload) VALUES (?, ?)", (s, n) -> {
              s.setLong(1, n);
              s.setString(2, "x".repeat(80));
            }).build();
        ps.add(p);
        builder.participant("rows" + ps.size(), p);
      }
      Coordinator coordinator = builder.build();
      List<Output<Long>> outs = new ArrayList<>();
      for (JdbcParticipant<Long> p : ps) {
        outs.add(coordinator.output(p));
      }
      long[] n = {0};
      double perCheckpoint = timing.run(checkpoints, () -> {
        for (int r = 0; r < rows; r++) {
          for (Output<Long> out : outs) {
            out.write(n[0]);
          }
          n[0]++;
        }
        timing.restartAt("checkpoint()");
        coordinator.checkpoint().awaitCommitted(Duration.ofMinutes(1));
        timing.reached("awaitCommitted returned");
      });
      coordinator.close();
      System.out.printf(Locale.ROOT, "[probe] %s, %d rows/checkpoint: %.2f ms per checkpoint%n", db, rows,
          perCheckpoint);
      timing.print("[probe]");
    }
    System.exit(0);
  }
}
