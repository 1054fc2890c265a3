package dev.twophase.demo;

import dev.twophase.ApplicationState;
import dev.twophase.Checkpoint;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FaultInjector;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.file.FileParticipant;
import dev.twophase.jdbc.JdbcParticipant;
import dev.twophase.kafka.KafkaParticipant;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The job, run in a child JVM by {@link Demo}: reads the {@link Orders} stream from the position of
 * the last decided checkpoint and writes every order to four sinks through one {@link Coordinator},
 * so that each checkpoint becomes visible in all four or in none:
 *
 * <ul>
 *   <li>{@value #ORDERS}: files of JSON lines ({@code FileParticipant});
 *   <li>{@value #LEDGER}: files of CSV {@code id,amount} lines ({@code FileParticipant});
 *   <li>{@value #TABLE}: rows of an embedded H2 database ({@code JdbcParticipant});
 *   <li>{@value #TOPIC}: records of a Kafka topic ({@code KafkaParticipant}), on a broker the
 *       demo's parent runs.
 * </ul>
 *
 * <p>Every run is the same program: a fresh state log means start at record 0; a log left by a
 * killed run means recover (commit what was decided, abort what was not) and resume at the
 * position stored with the last decided checkpoint. A crash spec {@code POINT:HIT} arms the job's
 * {@link WaitForKill} fault injector (given to the coordinator and to the state log), which stops
 * the job at that protocol point for its parent to kill it.
 *
 * <p>Arguments: {@code <work dir> <records> <checkpoint every> <records per part file>
 * <state log segment bytes> <Kafka bootstrap servers> <crash spec or none>}. Prints one line per
 * event on stdout; exit 0 when all records are committed, 1 on an error. It also exits when its
 * standard input closes: the parent is gone.
 */
public final class DemoJob {

  public static final String COORDINATOR = "demo";
  public static final String ORDERS = "orders";
  public static final String LEDGER = "ledger";
  public static final String TABLE = "table";
  public static final String TOPIC = "topic";
  /** The participants, in the order the coordinator pre-commits and commits them. */
  public static final List<String> SINKS = List.of(ORDERS, LEDGER, TABLE, TOPIC);

  /** Decided checkpoints that may wait for their commits before the next one waits too. */
  static final int MAX_PENDING_CHECKPOINTS = 2;

  /** The first line the job prints when it resumes after recovery; the input position follows it. */
  static final String RESTORED = "recovery: input position ";

  private static final Pattern TRANSACTION_NAME =
      Pattern.compile(COORDINATOR + "-[A-Za-z0-9._]+-[A-Za-z0-9._]+-[0-9]+-[0-9]+");

  private DemoJob() {}

  public static Path stateDir(Path work) {
    return work.resolve("state");
  }

  public static Path sinkDir(Path work, String sink) {
    return work.resolve("out").resolve(sink);
  }

  public static void main(String[] args) {
    PrintStream out = System.out;
    exitWhenParentIsGone(System.in);
    try {
      Path work = Path.of(args[0]);
      long records = Long.parseLong(args[1]);
      int every = Integer.parseInt(args[2]);
      int partRecords = Integer.parseInt(args[3]);
      long segmentBytes = Long.parseLong(args[4]);
      String bootstrapServers = args[5];
      FaultInjector faults = WaitForKill.parse(args[6], out);
      run(work, records, every, partRecords, segmentBytes, bootstrapServers, faults, out);
      out.flush();
      System.exit(0);
    } catch (Throwable e) {
      out.println("FAILED: " + e);
      out.flush();
      e.printStackTrace();
      System.exit(1);
    }
  }

  static void run(Path work, long records, int every, int partRecords, long segmentBytes,
      String bootstrapServers, FaultInjector faults, PrintStream out) throws Exception {
    long started = System.nanoTime();
    Orders input = new Orders(records);
    RecoveryCounter recovery = new RecoveryCounter(out);
    AtomicLong committedUpTo = new AtomicLong();

    // The log reports its own points (DURING_LOG_APPEND, DURING_COMPACTION) to the same injector.
    try (FileStateLog log = FileStateLog.builder(stateDir(work)).segmentBytes(segmentBytes).faultInjector(faults).build()) {
      FileParticipant<Orders.Order> orders = FileSinks.orders(sinkDir(work, ORDERS), partRecords);
      FileParticipant<CharSequence> ledger = FileSinks.ledger(sinkDir(work, LEDGER), partRecords);
      JdbcParticipant<Orders.Order> table = TableSink.participant(sinkDir(work, TABLE));
      KafkaParticipant<Orders.Order> topic = TopicSink.participant(bootstrapServers);

      Coordinator coordinator;
      try {
        coordinator = Coordinator.builder(COORDINATOR, log)
            .participant(ORDERS, orders)
            .participant(LEDGER, ledger)
            .participant(TABLE, table)
            .participant(TOPIC, topic)
            .config(CoordinatorConfig.custom()
                // Counted per output: every input record goes to each, so this is per input record.
                .checkpointEveryRecords(every)
                // Commits run behind the decisions on the committer thread; if they fall behind by
                // this many checkpoints, the next checkpoint waits (and the Kafka participant's
                // pool of transactional ids is sized from it).
                .maxPendingCheckpoints(MAX_PENDING_CHECKPOINTS, CoordinatorConfig.WhenPendingFull.BLOCK)
                .faultInjector(faults)
                .build())
            // The input position after the last record of each checkpoint; restored at start-up.
            .applicationState(ApplicationState.of(
                Codecs.json(Long.class),
                checkpointId -> input.position(),
                (position, checkpointId) -> {
                  input.seek(position);
                  recovery.restored(checkpointId, position);
                }))
            .listener(new CoordinatorListener() {
              @Override
              public void onRecoveryHandled(RecoveryAction action) {
                recovery.handled(action);
              }

              @Override
              public void onCheckpointCommitted(String coordinatorId, long checkpointId, Duration sinceDecided) {
                committedUpTo.accumulateAndGet(checkpointId, Math::max);
              }
            })
            .build(); // recovers whatever a killed run left, then begins new transactions
      } catch (RuntimeException | Error e) {
        // Without a coordinator, nobody else closes them.
        closeQuietly(topic, e);
        closeQuietly(table, e);
        closeQuietly(ledger, e);
        closeQuietly(orders, e);
        throw e;
      }

      try (coordinator) { // closing it closes the participants
        committedUpTo.set(coordinator.lastCheckpointId()); // recovery committed everything decided
        if (coordinator.lastCheckpointId() == 0 && recovery.actions() == 0) {
          out.println("fresh state log: starting at record 0");
        } else {
          out.println("recovered: last decided checkpoint " + coordinator.lastCheckpointId() + "; "
              + recovery.summary() + "; resuming at record " + input.position());
        }
        out.flush();

        Output<Orders.Order> ordersOut = coordinator.output(orders);
        Output<CharSequence> ledgerOut = coordinator.output(ledger);
        Output<Orders.Order> tableOut = coordinator.output(table);
        Output<Orders.Order> topicOut = coordinator.output(topic);
        long first = input.position();
        while (input.hasNext()) {
          Orders.Order order = input.next();
          ordersOut.write(order);
          ledgerOut.write(Orders.ledgerLine(order));
          tableOut.write(order);
          topicOut.write(order);
          coordinator.maybeCheckpoint().ifPresent(cp -> {
            out.println("checkpoint " + cp.id() + " decided, " + input.position() + " records"
                + " (committed up to checkpoint " + committedUpTo.get() + ")");
            out.flush();
          });
        }
        Checkpoint last = coordinator.finish(); // end of input: the rest goes into a last checkpoint
        last.awaitCommitted(Duration.ofMinutes(2));
        out.printf("finished: checkpoint %d committed, %d records in total, %d written by this JVM in %.1f s%n",
            last.id(), input.position(), input.position() - first, (System.nanoTime() - started) / 1e9);
      }
    }
  }

  private static void closeQuietly(AutoCloseable c, Throwable failure) {
    try {
      c.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * The parent keeps the job's standard input open while it runs; end of input means it is gone
   * (killed, say), and the job must not outlive it.
   */
  private static void exitWhenParentIsGone(InputStream stdin) {
    Thread watcher = new Thread(() -> {
      try {
        while (stdin.read() >= 0) {
          // nothing is sent; only the end matters
        }
      } catch (IOException e) {
        // as gone
      }
      System.err.println("the demo's parent is gone: stopping");
      Runtime.getRuntime().halt(3);
    }, "parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  /** Counts and prints what start-up recovery did with each handle. */
  private static final class RecoveryCounter {
    private final PrintStream out;
    private final Map<CoordinatorListener.RecoveryAction.Kind, AtomicLong> counts = new ConcurrentHashMap<>();

    RecoveryCounter(PrintStream out) {
      this.out = out;
    }

    long actions() {
      return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    private long count(CoordinatorListener.RecoveryAction.Kind kind) {
      AtomicLong n = counts.get(kind);
      return n == null ? 0 : n.get();
    }

    void handled(CoordinatorListener.RecoveryAction action) {
      counts.computeIfAbsent(action.kind(), k -> new AtomicLong()).incrementAndGet();
      String what = switch (action.kind()) {
        case COMMITTED -> "committed" + switch (action.participant()) {
          case ORDERS, LEDGER -> " (its part files renamed)";
          case TABLE -> " (COMMIT TRANSACTION of the prepared transaction)";
          case TOPIC -> " (a producer resumed from the handle committed it)";
          default -> "";
        };
        case ALREADY_COMMITTED -> "already committed before the crash";
        case ABORTED -> "aborted" + switch (action.participant()) {
          case ORDERS, LEDGER -> " (its in-progress files deleted)";
          case TABLE -> " (rolled back)";
          case TOPIC -> " (its Kafka transaction aborted)";
          default -> "";
        };
        case NOTHING_TO_ABORT -> "nothing to abort (none of it had reached the sink)";
        default -> action.kind().toString();
      };
      String kind = action.kind() == CoordinatorListener.RecoveryAction.Kind.COMMITTED
          || action.kind() == CoordinatorListener.RecoveryAction.Kind.ALREADY_COMMITTED
          ? "decided in checkpoint " : "begun for checkpoint ";
      out.println("recovery: " + action.participant() + " transaction " + name(action.handle())
          + " (" + kind + action.checkpointId() + "): " + what);
      out.flush();
    }

    void restored(long checkpointId, long position) {
      out.println(RESTORED + position + " restored from checkpoint " + checkpointId);
      out.flush();
    }

    String summary() {
      return count(CoordinatorListener.RecoveryAction.Kind.COMMITTED) + " transaction(s) committed, "
          + count(CoordinatorListener.RecoveryAction.Kind.ALREADY_COMMITTED) + " already committed, "
          + count(CoordinatorListener.RecoveryAction.Kind.ABORTED) + " aborted, "
          + count(CoordinatorListener.RecoveryAction.Kind.NOTHING_TO_ABORT) + " with nothing to abort";
    }

    private static String name(String handle) {
      Matcher m = TRANSACTION_NAME.matcher(handle);
      return m.find() ? m.group() : handle;
    }
  }
}
