package dev.twophase.benchmarks.statelog;

import dev.twophase.benchmarks.statelog.TimedCrew.Variant;
import dev.twophase.benchmarks.statelog.TimedCrew.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The hand-written loop with group commit by hand: the threads hand their updates (the same
 * conditional {@code UPDATE} as {@link JdbcFloors}) to one writer thread, which sends all that
 * are waiting as one JDBC batch on its own connection and commits once; each thread waits for
 * its update's commit.
 */
final class JdbcBatchedFloor implements Variant {

  private record Update(String coordinatorId, long epoch, long checkpointId, byte[] payload,
      CompletableFuture<Void> done) {}

  private static final Update STOP = new Update("", 0, 0, new byte[0], new CompletableFuture<>());

  private final DataSource ds;
  private final String prefix;
  private final LinkedBlockingQueue<Update> queue = new LinkedBlockingQueue<>();
  private final Connection connection;
  private final PreparedStatement update;
  private final Thread writer;

  JdbcBatchedFloor(DataSource ds, String prefix) throws SQLException {
    this.ds = ds;
    this.prefix = prefix;
    connection = ds.getConnection();
    try {
      connection.setAutoCommit(false);
      update = connection.prepareStatement(JdbcFloors.UPDATE);
    } catch (SQLException | RuntimeException | Error e) {
      connection.close();
      throw e;
    }
    writer = new Thread(this::write, "batched-floor-" + prefix);
    writer.setDaemon(true);
    writer.start();
  }

  private void write() {
    List<Update> batch = new ArrayList<>();
    try {
      while (true) {
        batch.clear();
        batch.add(queue.take());
        queue.drainTo(batch);
        boolean stop = batch.remove(STOP);
        if (!batch.isEmpty()) {
          flush(batch);
        }
        if (stop) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void flush(List<Update> batch) {
    try {
      for (Update u : batch) {
        JdbcFloors.bind(update, u.coordinatorId(), u.epoch(), u.checkpointId(), u.payload());
        update.addBatch();
      }
      int[] counts = update.executeBatch();
      connection.commit();
      for (int i = 0; i < batch.size(); i++) {
        // a driver may report SUCCESS_NO_INFO (-2) for a row of a batch
        if (counts[i] == 0) {
          batch.get(i).done().completeExceptionally(
              new SQLException("coordinator " + batch.get(i).coordinatorId() + " was fenced"));
        } else {
          batch.get(i).done().complete(null);
        }
      }
    } catch (SQLException | RuntimeException e) {
      for (Update u : batch) {
        u.done().completeExceptionally(e);
      }
      try {
        connection.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
    }
  }

  @Override
  public Worker worker(int thread) throws SQLException {
    String id = prefix + "-" + thread;
    long epoch;
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      epoch = JdbcFloors.claim(c, id);
    }
    byte[] payload = AppendVariants.payload(thread);
    return new Worker() {
      private long checkpointId;

      @Override
      public void op() throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queue.put(new Update(id, epoch, ++checkpointId, payload, done));
        try {
          done.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw new SQLException("the batched update of " + id + " failed: " + e.getCause(), e.getCause());
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() throws Exception {
    queue.put(STOP);
    writer.join(TimeUnit.MINUTES.toMillis(1));
    try {
      update.close();
    } finally {
      connection.close();
    }
  }
}
