package dev.twophase.file.crash;

import dev.twophase.Coordinator;
import dev.twophase.FileStateLog;
import dev.twophase.CoordinatorConfig;
import dev.twophase.FaultInjector;
import dev.twophase.Output;
import dev.twophase.StateLog;
import dev.twophase.crash.ChildProgram;
import dev.twophase.file.FileParticipant;
import dev.twophase.file.FilePoints;
import dev.twophase.file.RecordEncoders;
import dev.twophase.testing.CrashInjector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The program the file crash tests run in a child JVM: input 0, 1, ..., N-1 goes to two
 * {@link FileParticipant}s under one coordinator ({@value #COORDINATOR}) over a
 * {@link FileStateLog}:
 * <ul>
 *   <li>{@value #LINES} writes {@code record <n>} lines under directory {@code a}, into bucket
 *       {@link #bucketOf(long)}, rolling every 3 records;
 *   <li>{@value #JSON} writes JSON lines {@code {"n":<n>,"text":"json\nrecord <n>"}} under
 *       directory {@code b}, rolling every 120 bytes.
 * </ul>
 * It checkpoints after every k inputs, storing the input position as the application state, and
 * ends with {@code finish()}. Run with {@code -Dtwophase.crashAt=POINT[:n]} it halts at that
 * point with exit status 86: a coordinator's protocol point or one of the file participants' own
 * points ({@link dev.twophase.file.FilePoints}); one injector serves the coordinator and both
 * participants, so the n-th hit counts both participants' hits.
 *
 * <p>Arguments: {@code stateDir dataDir N k reportFile}. Right after recovery it writes
 * {@code reportFile}: the restored position and checkpoint and what both directories show
 * committed at that instant ({@link FileCrashChecker#writeReport}). Prints {@code DONE} at a clean
 * end; any exception exits with status 1. Properties: {@value #SEGMENT_BYTES} (log segment size,
 * small values make it compact often) and {@value #BYSTANDERS} (idle coordinators sharing the log,
 * so that compaction copies several states).
 */
public final class FileCrashChild {

  public static final String COORDINATOR = "filecrash";
  public static final String LINES = "lines";
  public static final String JSON = "json";
  public static final String SEGMENT_BYTES = "twophase.filecrash.segmentBytes";
  public static final String BYSTANDERS = "twophase.filecrash.bystanders";
  /**
   * {@code POINT[:n]} of a file participant's point ({@link dev.twophase.file.FilePoints}), passed
   * apart from {@code twophase.crashAt} so that the coordinator and both participants share one
   * injector, and so one hit counter, while the state log keeps its own
   * ({@code ChildProgram.openLog}).
   */
  public static final String FILE_CRASH_AT = "twophase.filecrash.crashAt";

  /** A JSON record. */
  public record Rec(long n, String text) {}

  private final ChildProgram.Position position = new ChildProgram.Position();

  /** The bucket of input n in directory a. */
  public static String bucketOf(long n) {
    return (n % 2 == 0 ? "even" : "odd") + "/m" + (n % 3);
  }

  public static String line(long n) {
    return "record " + n;
  }

  public static String jsonText(long n) {
    return "json\nrecord " + n;
  }

  public static void main(String[] args) {
    ChildProgram.main(() -> new FileCrashChild().run(args));
  }

  private void run(String[] args) throws Exception {
    if (args.length != 5) {
      throw new IllegalArgumentException("usage: FileCrashChild stateDir dataDir N k reportFile");
    }
    Path stateDir = Path.of(args[0]);
    Path dataDir = Path.of(args[1]);
    long n = Long.parseLong(args[2]);
    int k = Integer.parseInt(args[3]);
    Path report = Path.of(args[4]);
    long segmentBytes = Long.getLong(SEGMENT_BYTES, 0);
    int bystanders = Integer.getInteger(BYSTANDERS, 0);

    String fileCrashAt = System.getProperty(FILE_CRASH_AT);
    FaultInjector faults = fileCrashAt != null ? CrashInjector.parse(fileCrashAt, FilePoints.all()) : ChildProgram.crashInjector();
    try (StateLog log = ChildProgram.openLog(stateDir, segmentBytes)) {
      List<Coordinator> idle = ChildProgram.bystanders(log, bystanders, "abystander", "zbystander",
          id -> FileParticipant.builder(dataDir.resolve("bystanders").resolve(id), RecordEncoders.lines()).build());

      FileParticipant<CharSequence> lines = FileParticipant.builder(dataDir.resolve("a"), RecordEncoders.lines())
          .maxPartRecords(3)
          .suffix(".txt")
          .bucketAssigner(r -> bucketOf(Long.parseLong(r.toString().substring("record ".length()))))
          .faultInjector(faults)
          .build();
      FileParticipant<Object> json = FileParticipant.builder(dataDir.resolve("b"), RecordEncoders.jsonLines())
          .maxPartBytes(120)
          .suffix(".jsonl")
          .faultInjector(faults)
          .build();
      Coordinator coordinator = Coordinator.builder(COORDINATOR, log)
          .participant(LINES, lines)
          .participant(JSON, json)
          .config(CoordinatorConfig.custom()
              .commitRetryBackoff(Duration.ofMillis(10), Duration.ofMillis(200), 2.0)
              .closeTimeout(Duration.ofSeconds(30))
              .faultInjector(faults)
              .build())
          .applicationState(position.state())
          .build();

      // Right after recovery: what is visible must be exactly what the restored position says.
      FileCrashChecker.writeReport(report, position.next, position.restoredCheckpoint, dataDir);
      position.printRecovered(coordinator);

      Output<CharSequence> outLines = coordinator.output(lines);
      Output<Object> outJson = coordinator.output(json);
      long sinceCheckpoint = 0;
      while (position.next < n) {
        long record = position.next;
        outLines.write(line(record));
        outJson.write(new Rec(record, jsonText(record)));
        position.next = record + 1;
        if (++sinceCheckpoint == k) {
          sinceCheckpoint = 0;
          coordinator.checkpoint();
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
