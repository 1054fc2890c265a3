package dev.twophase.demo;

import dev.twophase.testing.CrashInjector;
import dev.twophase.ApplicationState;
import dev.twophase.Checkpoint;
import dev.twophase.Codecs;
import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.CoordinatorListener;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.RecordEncoders;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The job, run in a child JVM by {@link Demo}: reads the {@link Orders} stream from the position of
 * the last decided checkpoint and writes every order to two file sinks, the orders (JSON lines) and
 * the ledger (CSV {@code id,amount}), through one {@link Coordinator}, so that each checkpoint
 * becomes visible in both sinks or in neither.
 *
 * <p>Every run is the same program: a fresh state log means start at record 0; a log left by a
 * crashed run means recover (commit what was decided, abort what was not) and resume at the
 * position stored with the last decided checkpoint. A JVM started with
 * {@code -Dtwophase.crashAt=POINT:n} halts itself at that protocol point (exit 86), like
 * {@code kill -9}.
 *
 * <p>Arguments: {@code <work dir> <records> <checkpoint every> <records per part file>
 * <state log segment bytes>}. Prints one line per event on stdout; exit 0 when all records are
 * committed, 1 on an error.
 */
public final class DemoJob {

  public static final String COORDINATOR = "demo";
  public static final String ORDERS = "orders";
  public static final String LEDGER = "ledger";
  /** The system property that arms a crash: {@code POINT:n} halts the JVM at the n-th hit. */
  public static final String CRASH_AT = "twophase.crashAt";

  private static final Pattern FILE_HANDLE = Pattern.compile("FileTransaction\\{([^,}]+)");

  private DemoJob() {}

  public static Path stateDir(Path work) {
    return work.resolve("state");
  }

  public static Path sinkDir(Path work, String sink) {
    return work.resolve("out").resolve(sink);
  }

  public static void main(String[] args) {
    PrintStream out = System.out;
    try {
      Path work = Path.of(args[0]);
      long records = Long.parseLong(args[1]);
      int every = Integer.parseInt(args[2]);
      int partRecords = Integer.parseInt(args[3]);
      long segmentBytes = Long.parseLong(args[4]);
      run(work, records, every, partRecords, segmentBytes, out);
      out.flush();
      System.exit(0);
    } catch (Throwable e) {
      out.println("FAILED: " + e);
      out.flush();
      e.printStackTrace();
      System.exit(1);
    }
  }

  static void run(Path work, long records, int every, int partRecords, long segmentBytes, PrintStream out) {
    long started = System.nanoTime();
    Orders input = new Orders(records);
    RecoveryCounter recovery = new RecoveryCounter(out);
    AtomicLong committedUpTo = new AtomicLong();

    try (FileStateLog log = FileStateLog.builder(stateDir(work)).segmentBytes(segmentBytes).build()) {
      FileParticipant<Orders.Order> orders =
          FileParticipant.builder(sinkDir(work, ORDERS), RecordEncoders.<Orders.Order>jsonLines())
              .maxPartRecords(partRecords)
              .suffix(".jsonl")
              .build();
      FileParticipant<CharSequence> ledger =
          FileParticipant.builder(sinkDir(work, LEDGER), RecordEncoders.lines())
              .maxPartRecords(partRecords)
              .suffix(".csv")
              .build();

      Coordinator coordinator = Coordinator.builder(COORDINATOR, log)
          .participant(ORDERS, orders)
          .participant(LEDGER, ledger)
          // Counted per output: every input record goes to both, so this is per input record.
          .config(CoordinatorConfig.custom()
              .checkpointEveryRecords(every)
              .faultInjector(CrashInjector.parse(System.getProperty(CRASH_AT)))
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
          .build(); // recovers whatever a crashed run left, then begins new transactions

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
      long first = input.position();
      while (input.hasNext()) {
        Orders.Order order = input.next();
        ordersOut.write(order);
        ledgerOut.write(Orders.ledgerLine(order));
        coordinator.maybeCheckpoint().ifPresent(cp -> {
          out.println("checkpoint " + cp.id() + " decided, " + input.position() + " records"
              + " (committed up to checkpoint " + committedUpTo.get() + ")");
          out.flush();
        });
      }
      Checkpoint last = coordinator.finish(); // end of input: the rest goes into a last checkpoint
      last.awaitCommitted(Duration.ofMinutes(2));
      coordinator.close();
      out.printf("finished: checkpoint %d committed, %d records in total, %d written by this JVM in %.1f s%n",
          last.id(), input.position(), input.position() - first, (System.nanoTime() - started) / 1e9);
    }
  }

  /** Counts and prints what start-up recovery did with each handle. */
  private static final class RecoveryCounter {
    private final PrintStream out;
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger alreadyCommitted = new AtomicInteger();
    private final AtomicInteger aborted = new AtomicInteger();
    private final AtomicInteger other = new AtomicInteger();

    RecoveryCounter(PrintStream out) {
      this.out = out;
    }

    int actions() {
      return committed.get() + alreadyCommitted.get() + aborted.get() + other.get();
    }

    void handled(CoordinatorListener.RecoveryAction action) {
      String what;
      switch (action.kind()) {
        case COMMITTED -> {
          committed.incrementAndGet();
          what = "committed (recoverAndCommit renamed its part files)";
        }
        case ALREADY_COMMITTED -> {
          alreadyCommitted.incrementAndGet();
          what = "already committed before the crash (recoverAndCommit found its final files)";
        }
        case ABORTED -> {
          aborted.incrementAndGet();
          what = "aborted (recoverAndAbort deleted its in-progress files)";
        }
        default -> {
          other.incrementAndGet();
          what = action.kind().toString();
        }
      }
      String kind = action.kind() == CoordinatorListener.RecoveryAction.Kind.ABORTED
          ? "begun for checkpoint " : "decided in checkpoint ";
      out.println("recovery: " + action.participant() + " transaction " + name(action.handle())
          + " (" + kind + action.checkpointId() + "): " + what);
      out.flush();
    }

    void restored(long checkpointId, long position) {
      out.println("recovery: input position " + position + " restored from checkpoint " + checkpointId);
      out.flush();
    }

    String summary() {
      return committed.get() + " transaction(s) committed, " + alreadyCommitted.get()
          + " already committed, " + aborted.get() + " aborted";
    }

    private static String name(String handle) {
      Matcher m = FILE_HANDLE.matcher(handle);
      return m.lookingAt() ? m.group(1) : handle;
    }
  }
}
