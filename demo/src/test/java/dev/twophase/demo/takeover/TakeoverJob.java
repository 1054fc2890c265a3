package dev.twophase.demo.takeover;

import dev.twophase.ApplicationState;
import dev.twophase.Checkpoint;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FaultInjector;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.demo.Orders;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.kafka.KafkaParticipant;
import dev.twophase.kafka.RecordMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The child JVM of {@link TakeoverIT}: one {@link Coordinator} over a file participant (JSON
 * lines in a shared output directory), a JDBC participant on PostgreSQL and a Kafka participant,
 * on the state log its arguments name ({@link JobArgs}). It restores the input position from the
 * last decided checkpoint ({@link ApplicationState}), writes the rest of the input and finishes.
 * A crash spec {@code POINT:HIT} parks it at that protocol point ({@link StopAtPoint}) for the
 * parent to kill it.
 *
 * <p>Prints one line per event (see the constants); exits 0 when every record is committed, 1 on
 * an error (the line {@value #FAILED} and the exception), and when its standard input closes.
 */
public final class TakeoverJob {

  static final String FILES = "files";
  static final String PG = "pg";
  static final String KAFKA = "kafka";
  static final String CLAIMED = "claimed: owner epoch ";
  static final String DECIDED = "decided: checkpoint ";
  static final String COMMITTED = "committed: checkpoint ";
  static final String FINISHED = "finished: checkpoint ";
  static final String FAILED = "FAILED: ";

  private TakeoverJob() {}

  public static void main(String[] args) {
    PrintStream out = System.out;
    exitWhenParentIsGone(System.in);
    try {
      JobArgs job = JobArgs.parse(args);
      out.println("start: owner " + job.owner() + ", pid " + ProcessHandle.current().pid() + ", crash " + job.crash());
      out.flush();
      run(job, StopAtPoint.parse(job.crash(), Path.of(job.local()), out), out);
      out.flush();
      System.exit(0);
    } catch (Throwable e) {
      synchronized (out) {
        out.println(FAILED + e);
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
          out.println("  caused by: " + c);
        }
        out.flush();
      }
      e.printStackTrace();
      System.exit(1);
    }
  }

  static void run(JobArgs job, FaultInjector faults, PrintStream out) throws Exception {
    Orders input = new Orders(job.records());
    try (StateLog log = StateLogs.open(job.log(), job.owner(), job.takeOver(), faults)) {
      FileParticipant<CharSequence> files = null;
      JdbcParticipant<Orders.Order> pg = null;
      KafkaParticipant<Orders.Order> kafka = null;
      Coordinator coordinator;
      try {
        Coordinator.Builder builder = Coordinator.builder(job.coordinator(), log);
        if (job.has(FILES)) {
          files = FileParticipant.builder(Path.of(job.output()), RecordEncoders.lines())
              .maxPartRecords(4)
              .suffix(".jsonl")
              .build();
          builder.participant(FILES, files);
        }
        if (job.has(PG)) {
          pg = JdbcParticipant.builder(dataSource(job.pgUrl()))
              .name("postgres " + job.table())
              .<Orders.Order>insert("INSERT INTO " + job.table() + " (id, customer, amount) VALUES (?, ?, ?)",
                  (st, o) -> {
                    st.setLong(1, o.id());
                    st.setString(2, o.customer());
                    st.setBigDecimal(3, o.amount());
                  })
              .build();
          builder.participant(PG, pg);
        }
        if (job.has(KAFKA)) {
          Serializer<Orders.Order> json = (topic, order) -> Orders.json(order).getBytes(StandardCharsets.UTF_8);
          kafka = KafkaParticipant.<Orders.Order>builder(Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, job.bootstrap(),
                  ProducerConfig.LINGER_MS_CONFIG, 5))
              .records(RecordMapper.toTopic(job.topic(), json))
              .transactionalIdPrefix(job.idPrefix())
              .build();
          builder.participant(KAFKA, kafka);
        }
        coordinator = builder
            .config(CoordinatorConfig.custom()
                .checkpointEveryRecords(job.every())
                .maxPendingCheckpoints(2, CoordinatorConfig.WhenPendingFull.BLOCK)
                .faultInjector(faults)
                .build())
            .applicationState(ApplicationState.of(
                Codecs.json(Long.class),
                checkpointId -> input.position(),
                (position, checkpointId) -> {
                  input.seek(position);
                  print(out, "restored: position " + position + " from checkpoint " + checkpointId);
                }))
            .listener(new Printer(out))
            .build();
      } catch (RuntimeException | Error e) {
        closeQuietly(kafka, e);
        closeQuietly(pg, e);
        closeQuietly(files, e);
        throw e;
      }
      try (coordinator) {
        print(out, CLAIMED + coordinator.ownerEpoch() + ", last decided checkpoint " + coordinator.lastCheckpointId()
            + ", resuming at record " + input.position());
        Output<CharSequence> filesOut = files == null ? null : coordinator.output(files);
        Output<Orders.Order> pgOut = pg == null ? null : coordinator.output(pg);
        Output<Orders.Order> kafkaOut = kafka == null ? null : coordinator.output(kafka);
        while (input.hasNext()) {
          Orders.Order order = input.next();
          if (filesOut != null) {
            filesOut.write(Orders.json(order));
          }
          if (pgOut != null) {
            pgOut.write(order);
          }
          if (kafkaOut != null) {
            kafkaOut.write(order);
          }
          coordinator.maybeCheckpoint();
          if (job.delayMillis() > 0) {
            Thread.sleep(job.delayMillis());
          }
        }
        Checkpoint last = coordinator.finish();
        last.awaitCommitted(Duration.ofMinutes(1));
        print(out, FINISHED + last.id() + " committed, " + input.position() + " records");
      }
    }
  }

  static PGSimpleDataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }

  private static void print(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  private static void closeQuietly(AutoCloseable c, Throwable failure) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /** The parent keeps standard input open while it runs: its end means the parent is gone. */
  static void exitWhenParentIsGone(InputStream stdin) {
    Thread watcher = new Thread(() -> {
      try {
        while (stdin.read() >= 0) {
          // only the end matters
        }
      } catch (IOException e) {
        // as gone
      }
      Runtime.getRuntime().halt(3);
    }, "parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  /** Prints the coordinator's events. */
  private static final class Printer implements CoordinatorListener {
    private final PrintStream out;

    Printer(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onCheckpointDecided(String coordinatorId, long checkpointId, Duration took) {
      print(out, DECIDED + checkpointId);
    }

    @Override
    public void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {
      print(out, COMMITTED + checkpointId);
    }

    @Override
    public void onCheckpointFailed(String coordinatorId, long checkpointId, Throwable cause) {
      print(out, "checkpoint " + checkpointId + " failed: " + cause);
    }

    @Override
    public void onRecoveryHandled(RecoveryAction action) {
      print(out, "recovery: " + action.participant() + " " + action.kind() + " (checkpoint " + action.checkpointId()
          + ")");
    }
  }
}
