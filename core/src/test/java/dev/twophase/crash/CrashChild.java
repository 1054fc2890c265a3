package dev.twophase.crash;

import dev.twophase.Coordinator;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FileStateLog;
import dev.twophase.Output;
import dev.twophase.StateLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The program a crash test runs in a child JVM. It writes the input 0, 1, ..., N-1 to two
 * {@link DiskParticipant}s ("a" and "b") under one coordinator ("crash-test") over a
 * {@link FileStateLog}, checkpointing every k records, and stores the input position as the
 * application state. Run with {@code -Dtwophase.crashAt=POINT[:n]}, it halts at that point with
 * exit status 86.
 *
 * <p>Arguments: {@code stateDir dataDir N k mode reportFile}
 * <ul>
 *   <li>{@code mode}: {@code records} (the coordinator checkpoints by record count through
 *       {@code maybeCheckpoint()}, every 2k records since each input goes to both outputs) or
 *       {@code explicit} (the loop calls {@code checkpoint()} after every k inputs).
 *   <li>{@code reportFile}: written right after recovery (after {@code build()}): the restored
 *       position, the restored checkpoint, and what each participant shows committed at that
 *       instant (see {@link CrashChecker#writeRecoveryReport}).
 * </ul>
 * System properties: {@code twophase.crash.segmentBytes} (segment size of the log; small values
 * make it compact often), {@code twophase.crash.bystanders} (idle coordinators sharing the log, so
 * that compaction copies more than one coordinator's state).
 *
 * <p>Prints {@code RECOVERED position=P checkpoint=C} and, at a clean end, {@code DONE}; any
 * exception exits with status 1.
 */
public final class CrashChild {

  public static final String COORDINATOR = "crash-test";
  public static final String SEGMENT_BYTES = "twophase.crash.segmentBytes";
  public static final String BYSTANDERS = "twophase.crash.bystanders";

  private final ChildProgram.Position position = new ChildProgram.Position();

  public static void main(String[] args) {
    ChildProgram.main(() -> new CrashChild().run(args));
  }

  private void run(String[] args) throws Exception {
    if (args.length != 6) {
      throw new IllegalArgumentException("usage: CrashChild stateDir dataDir N k records|explicit reportFile");
    }
    Path stateDir = Path.of(args[0]);
    Path dataDir = Path.of(args[1]);
    long n = Long.parseLong(args[2]);
    int k = Integer.parseInt(args[3]);
    boolean explicit = switch (args[4]) {
      case "explicit" -> true;
      case "records" -> false;
      default -> throw new IllegalArgumentException("mode must be records or explicit: " + args[4]);
    };
    Path report = Path.of(args[5]);
    long segmentBytes = Long.getLong(SEGMENT_BYTES, 0);
    int bystanders = Integer.getInteger(BYSTANDERS, 0);

    try (StateLog log = ChildProgram.openLog(stateDir, segmentBytes)) {
      List<Coordinator> idle = ChildProgram.bystanders(log, bystanders, "a-bystander-", "z-bystander-",
          id -> new DiskParticipant(dataDir.resolve("bystanders").resolve(id)));

      DiskParticipant a = new DiskParticipant(dataDir.resolve("a"));
      DiskParticipant b = new DiskParticipant(dataDir.resolve("b"));
      CoordinatorConfig.Builder config = CoordinatorConfig.custom()
          .commitRetryBackoff(Duration.ofMillis(10), Duration.ofMillis(200), 2.0)
          .closeTimeout(Duration.ofSeconds(30))
          .faultInjector(ChildProgram.crashInjector());
      if (!explicit) {
        config.checkpointEveryRecords(k); // counted per output: every k inputs
      }
      Coordinator coordinator = Coordinator.builder(COORDINATOR, log)
          .participant("a", a)
          .participant("b", b)
          .config(config.build())
          .applicationState(position.state())
          .build();

      // Right after recovery: what is visible must be exactly what the restored position says.
      CrashChecker.writeRecoveryReport(report, position.next, position.restoredCheckpoint, dataDir);
      position.printRecovered(coordinator);

      Output<Long> outA = coordinator.output(a);
      Output<Long> outB = coordinator.output(b);
      long sinceCheckpoint = 0;
      while (position.next < n) {
        long record = position.next;
        outA.write(record);
        outB.write(record);
        position.next = record + 1;
        if (explicit) {
          if (++sinceCheckpoint == k) {
            sinceCheckpoint = 0;
            coordinator.checkpoint();
          }
        } else {
          coordinator.maybeCheckpoint();
        }
      }
      coordinator.finish().awaitCommitted(Duration.ofSeconds(30));
      coordinator.close();
      for (Coordinator c : idle) {
        c.close();
      }
    }
    if (!Files.exists(report)) {
      throw new IllegalStateException("no recovery report was written");
    }
  }
}
